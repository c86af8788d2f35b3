/**
 * A person signing in at oidc-provider's own login and consent pages (its development interactions), with
 * plain HTTP requests: follow the authorization URL, submit the login form, then the consent form, and
 * return the redirect to the client's callback, which carries the code. Cookies are kept as a browser
 * would keep them for one site.
 */
export async function signInAtProvider(authorizationUrl: URL, login: string, callbackPrefix: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const remember = (response: Response) => {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(";");
      const separator = pair!.indexOf("=");
      cookies.set(pair!.slice(0, separator), pair!.slice(separator + 1));
    }
  };
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  let url = authorizationUrl.toString();
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 12; step += 1) {
    if (url.startsWith(callbackPrefix)) return new URL(url);
    const response = await fetch(url, {
      method: body ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: cookieHeader(),
        ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(body ? { body: body.toString() } : {}),
    });
    remember(response);
    body = undefined;
    const location = response.headers.get("location");
    if (location) {
      url = new URL(location, url).toString();
      continue;
    }
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1];
    if (!action || !prompt)
      throw new Error(`the provider's page has no form (HTTP ${response.status}): ${page.slice(0, 300)}`);
    url = new URL(action, url).toString();
    body = new URLSearchParams(prompt === "login" ? { prompt, login, password: "any" } : { prompt });
  }
  throw new Error("the sign-in did not reach the callback");
}
