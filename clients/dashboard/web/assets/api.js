// The gateway's HTTP API (docs/dashboard.md). Requests carry the session
// cookie the login set; errors become ApiError with the gateway's code and
// message.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || `${status} ${code}`);
    this.status = status;
    this.code = code;
  }
}

async function request(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, "UNAVAILABLE", `The dashboard server is not reachable (${e.message})`);
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const err = json?.error ?? {};
    throw new ApiError(response.status, err.code ?? String(response.status), err.message ?? (text || response.statusText));
  }
  return json;
}

const q = (params) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") s.set(k, v);
  const text = s.toString();
  return text ? `?${text}` : "";
};
const enc = encodeURIComponent;

export const api = {
  // Trades the URL's token for the HttpOnly cookie.
  async login(token) {
    const response = await fetch("/api/login", {
      method: "POST", credentials: "same-origin", headers: { Authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw new ApiError(response.status, "UNAUTHENTICATED", "The token in the address was refused");
  },
  info: () => request("GET", "/api/info"),
  sessions: (params) => request("GET", `/api/sessions${q(params)}`),
  createSession: (body) => request("POST", "/api/sessions", body),
  // { without_context: "true" }: the session without its context estimate,
  // which a long session's first screen need not wait for.
  session: (id, params = {}) => request("GET", `/api/sessions/${enc(id)}${q(params)}`),
  deleteSession: (id) => request("DELETE", `/api/sessions/${enc(id)}`),
  history: (id, params) => request("GET", `/api/sessions/${enc(id)}/history${q(params)}`),
  stats: (id) => request("GET", `/api/sessions/${enc(id)}/stats`),
  agents: () => request("GET", "/api/agents"),
  models: (sessionId) => request("GET", `/api/models${q({ session_id: sessionId })}`),
  mcp: (sessionId) => request("GET", `/api/mcp${q({ session_id: sessionId })}`),
  configCheck: () => request("GET", "/api/config/check"),
  packages: () => request("GET", "/api/packages"),
  plugin: (ns) => request("GET", `/api/plugins/${enc(ns)}`),
  setPlugin: (ns, settings, revision) => request("PUT", `/api/plugins/${enc(ns)}`, { settings, revision }),
  // The page's preferences as the gateway keeps them (prefs.js).
  preferences: () => request("GET", "/api/preferences"),
  setPreferences: (prefs) => request("PUT", "/api/preferences", prefs),
};
