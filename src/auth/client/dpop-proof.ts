/** The MCP server's side of DPoP (RFC 9449 §7): a proof with every request that carries a DPoP-bound token. */
import { allowInsecureRequests, customFetch, protectedResourceRequest } from 'oauth4webapi';
import type { Grant } from './flow.js';

type FetchLike = typeof fetch;

/**
 * A request with a DPoP-bound token: oauth4webapi adds the proof (htm, htu, ath, the server's
 * nonce) and `Authorization: DPoP`, and caches the nonce the answer carries. Its challenge
 * handling is not used: the answer is returned as it came, for the fetch wrapper
 * (oauth-client.ts) to judge.
 */
export async function withProof(
  inner: FetchLike,
  input: Parameters<FetchLike>[0],
  init: RequestInit | undefined,
  grant: Grant,
): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  let answer: Response | undefined;
  const send: FetchLike = async (_url, prepared) => {
    answer = await inner(input, { ...init, method, headers: prepared?.headers });
    return answer;
  };
  try {
    await protectedResourceRequest(
      grant.tokens.access_token,
      method,
      url,
      new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)),
      null,
      {
        DPoP: grant.dpop,
        [customFetch]: send,
        // The MCP server's URL was vetted by the transport; oauth4webapi's https check is for OAuth endpoints.
        [allowInsecureRequests]: true,
      },
    );
  } catch (e) {
    if (!answer) throw e;
  }
  return answer!;
}
