/**
 * The TOML configuration bundled into the edge worker: `npm run build:edge` resolves this module to
 * CONFIG_PATH (default proxy.toml) with esbuild's text loader.
 */
declare module 'gateway:config' {
  const toml: string;
  export default toml;
}
