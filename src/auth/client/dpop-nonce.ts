/** The one retry RFC 9449 §8 asks for: a token request refused with `use_dpop_nonce` goes again with the server's nonce. */
import { isDPoPNonceError, type DPoPHandle } from 'oauth4webapi';

/** Runs `attempt`, and once more when it failed for want of a fresh DPoP nonce (the handle has cached the server's). */
export async function withDPoPNonce<T>(dpop: DPoPHandle | undefined, attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (e) {
    if (dpop && isDPoPNonceError(e)) return attempt();
    throw e;
  }
}
