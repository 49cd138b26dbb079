/**
 * The authorization server of the `janus-auth` variant (bench/servers/janus.ts `--variant auth`):
 * a `node:http` server on 127.0.0.1 that publishes its metadata (RFC 8414) and its JWKS, and
 * signs access tokens (RFC 9068 JWTs, RS256, the usual default of hosted authorization
 * servers) with its key. The protected server discovers it and fetches the keys over loopback
 * HTTP, as a deployment does; it serves nothing else (no authorization or token endpoint: the
 * benchmark's one token is signed here directly). Loaded only by that variant.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import * as jose from 'jose';

const ALG = 'RS256';
const KID = 'janus-bench-1';

export interface LocalIssuer {
  /** `http://127.0.0.1:<port>`: the `issuer` of the metadata and of every token. */
  readonly issuer: string;
  /** How often each document was fetched (the protected server should fetch each once). */
  readonly fetches: { metadata: number; jwks: number };
  /** An access token for `audience` (the protected resource's URL) with `scope`, valid for a day. */
  sign(audience: string, scope: string): Promise<string>;
}

function json(res: ServerResponse, body: unknown): void {
  const s = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
  res.end(s);
}

export async function startIssuer(): Promise<LocalIssuer> {
  const { publicKey, privateKey } = await jose.generateKeyPair(ALG);
  const jwks = { keys: [{ ...(await jose.exportJWK(publicKey)), kid: KID, alg: ALG, use: 'sig' }] };
  const fetches = { metadata: 0, jwks: 0 };
  let issuer = '';
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server') {
      fetches.metadata++;
      json(res, {
        issuer,
        jwks_uri: `${issuer}/jwks`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
      });
    } else if (req.url === '/jwks') {
      fetches.jwks++;
      json(res, jwks);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  issuer = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  // Idle after the protected server's two fetches: it must not keep the process alive.
  server.unref();
  return {
    issuer,
    fetches,
    sign: (audience, scope) =>
      new jose.SignJWT({ client_id: 'janus-bench', scope })
        .setProtectedHeader({ alg: ALG, typ: 'at+jwt', kid: KID })
        .setIssuer(issuer)
        .setSubject('bench-user')
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('24h')
        .setJti(randomUUID())
        .sign(privateKey),
  };
}
