// The inbox's only way to the server: same-origin fetch with the session
// cookie, the CSRF header on every write, and the server's error message
// carried in an ApiError for the screen to show.

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

let onUnauthorized = null;

// Called once when a request (other than the sign-in ones) answers 401: the
// session ended; the app goes back to the sign-in screen.
export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

function buildUrl(path, query) {
  const url = new URL(path, window.location.origin);
  if (query) {
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined || value === null || value === '') continue;
      if (Array.isArray(value)) value.forEach((v) => url.searchParams.append(key, String(v)));
      else url.searchParams.set(key, String(value));
    }
  }
  return url.pathname + url.search;
}

// request('GET', '/api/chat/conversations', {query: {status: 'open'}})
// request('POST', '/api/chat/conversations/1/state', {body: {status: 'resolved'}})
// request('POST', '/api/chat/conversations/1/files', {query: {name}, raw: file, contentType: file.type})
// Resolves to the parsed JSON body (or null for an empty one); rejects with
// an ApiError that has the server's message.
export async function request(method, path, opts = {}) {
  const headers = {Accept: 'application/json'};
  let body;
  if (method !== 'GET' && method !== 'HEAD') headers['X-Livechat-Csrf'] = '1';
  if (opts.raw !== undefined) {
    body = opts.raw;
    headers['Content-Type'] = opts.contentType || 'application/octet-stream';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  let resp;
  try {
    resp = await fetch(buildUrl(path, opts.query), {
      method,
      headers,
      body,
      credentials: 'same-origin',
      cache: 'no-store',
      signal: opts.signal,
    });
  } catch (err) {
    if (err && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'Cannot reach the server. Check your connection and try again.');
  }
  let data = null;
  const text = await resp.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!resp.ok) {
    const err = data && data.error ? data.error : {};
    const retryAfter = parseInt(resp.headers.get('Retry-After') || '', 10);
    const apiError = new ApiError(resp.status, err.code || `HTTP_${resp.status}`,
                                  err.message || `${resp.status} ${resp.statusText || 'error'}`,
                                  Number.isFinite(retryAfter) ? retryAfter : null);
    if (resp.status === 401 && !opts.noAuthRedirect && onUnauthorized) onUnauthorized(apiError);
    throw apiError;
  }
  return data;
}

export const get = (path, query, opts = {}) => request('GET', path, {...opts, query});
export const post = (path, body, opts = {}) => request('POST', path, {...opts, body});
export const del = (path, opts = {}) => request('DELETE', path, opts);

const enc = encodeURIComponent;
export const conv = (id, rest = '') => `/api/chat/conversations/${enc(id)}${rest}`;

// The endpoints, named after the operations in docs/api/openapi.yaml.
export const api = {
  session: () => get('/api/auth/session', null, {noAuthRedirect: true}),
  login: (email, password, shopId) =>
    post('/api/auth/login', shopId ? {email, password, shopId} : {email, password}, {noAuthRedirect: true}),
  logout: () => post('/api/auth/logout', undefined, {noAuthRedirect: true}),

  members: () => get('/api/chat/members'),
  tagCatalog: () => get('/api/chat/tags'),
  inboxCounts: () => get('/api/chat/inbox-counts'),

  listConversations: (query, signal) => get('/api/chat/conversations', query, {signal}),
  getConversation: (id) => get(conv(id)),
  messages: (id, query) => get(conv(id, '/messages'), query),
  sendMessage: (id, body) => post(conv(id, '/messages'), body),
  uploadFile: (id, file) => request('POST', conv(id, '/files'), {
    query: {name: file.name || 'file'},
    raw: file,
    contentType: file.type || 'application/octet-stream',
  }),
  setState: (id, status) => post(conv(id, '/state'), {status}),
  assign: (id, memberId) => post(conv(id, '/assign'), {memberId}),
  star: (id, starred) => post(conv(id, '/star'), {starred}),
  markRead: (id) => post(conv(id, '/read'), {}),
  typing: (id) => get(conv(id, '/typing')),
  addTags: (id, tags) => post(conv(id, '/tags'), {tags}),
  removeTag: (id, tag) => del(conv(id, `/tags/${enc(tag)}`)),
  attributes: (id) => get(conv(id, '/attributes')),
  upsertAttribute: (id, name, value) => post(conv(id, '/attributes'), {name, value}),
  updateAttribute: (id, attributeId, body) =>
    request('PUT', conv(id, `/attributes/${enc(attributeId)}`), {body}),
  deleteAttribute: (id, attributeId) => del(conv(id, `/attributes/${enc(attributeId)}`)),
  related: (id, query) => get(conv(id, '/related'), query),
  browsedPages: (id) => get(conv(id, '/browsed-pages')),
  summary: (id) => get(conv(id, '/summary')),

  customer: (uuid) => get(`/api/chat/customers/${enc(uuid)}`),
  deleteCustomer: (uuid) => del(`/api/chat/customers/${enc(uuid)}`),
};
