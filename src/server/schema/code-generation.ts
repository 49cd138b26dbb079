/**
 * Whether this runtime lets code be generated from strings (`new Function`). Cloudflare workerd,
 * a page whose Content-Security-Policy lacks 'unsafe-eval', and Node started with
 * `--disallow-code-generation-from-strings` refuse it; a validator that compiles schemas to code
 * cannot run there, one that interprets them can. Asked once.
 */
let allowed: boolean | undefined;

export function codeGenerationAllowed(): boolean {
  if (allowed === undefined) {
    try {
      // The probe itself: a constant body, nothing from outside is evaluated.
      allowed = new Function('return true')() === true;
    } catch {
      allowed = false;
    }
  }
  return allowed;
}
