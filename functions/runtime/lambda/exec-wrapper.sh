#!/bin/bash
# The Lambda function's AWS_LAMBDA_EXEC_WRAPPER (shipped as /var/task/exec-wrapper.sh). Lambda's Node.js
# runtime runs it with its own command line: the node binary first, then node's options and the runtime's
# entry. V8 refuses --initial-old-space-size in NODE_OPTIONS, so the flag goes on that command line, right
# after node: the same flags as the Node server's NODE_SERVER_FLAGS (functions/node-server.ts, ADR 0003),
# which a spec keeps equal to this line.
exec "$1" --initial-old-space-size=64 "${@:2}"
