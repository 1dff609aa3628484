/** The STS endpoint: AssumeRoleWithWebIdentity, GetCallerIdentity, and the sealed session tokens they share. */
export { StsService } from './service';
export type { StsServiceDeps } from './service';
export { StsError, STS_ERROR_STATUS } from './errors';
export type { StsErrorCode } from './errors';
export { importSessionKey, sealSession, sessionUnsealer, unsealSession } from './session-token';
export { stsErrorResponse } from './responses';
