// oidc-provider ships no types (and @types/oidc-provider lags its major versions): the tests use it untyped.
declare module 'oidc-provider';
