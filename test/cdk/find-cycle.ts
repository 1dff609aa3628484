type Json = Record<string, unknown>;

/** A dependency cycle among resources (Ref, Fn::GetAtt, Fn::Sub and DependsOn edges), if any. */
export function findCycle(resources: Record<string, Json>): string[] | undefined {
  const edges = new Map<string, Set<string>>();
  for (const [id, resource] of Object.entries(resources)) {
    const targets = new Set<string>();
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (typeof value === 'object' && value !== null) {
        for (const [key, v] of Object.entries(value)) {
          if (key === 'Ref' && typeof v === 'string' && v in resources) targets.add(v);
          else if (key === 'Fn::GetAtt' && Array.isArray(v) && typeof v[0] === 'string') targets.add(v[0]);
          else if (key === 'Fn::Sub' && typeof v === 'string') for (const m of v.matchAll(/\$\{([^.}]+)/g)) if (m[1] in resources) targets.add(m[1]);
          walk(v);
        }
      }
    };
    walk(resource.Properties);
    for (const dep of (resource.DependsOn as string[] | undefined) ?? []) targets.add(dep);
    edges.set(id, targets);
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, path: string[]): string[] | undefined => {
    if (state.get(id) === 'visiting') return [...path, id];
    if (state.get(id) === 'done') return undefined;
    state.set(id, 'visiting');
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next, [...path, id]);
      if (cycle) return cycle;
    }
    state.set(id, 'done');
    return undefined;
  };
  for (const id of edges.keys()) {
    const cycle = visit(id, []);
    if (cycle) return cycle;
  }
  return undefined;
}
