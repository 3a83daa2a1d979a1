-- wrk script: POST a GraphQL customers page. LC_APP, LC_KEY and LC_AFTER
-- (empty for the first page) come from the environment.
local after = os.getenv("LC_AFTER") or ""
local args = "first: 100"
if after ~= "" then args = args .. ", after: \\\"" .. after .. "\\\"" end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-api-id"] = os.getenv("LC_APP")
wrk.headers["x-api-secret"] = os.getenv("LC_KEY")
wrk.body = '{"query":"{ customers(' .. args .. ') { totalCount edges { cursor node { id firstName lastName email type channels createdAt } } pageInfo { hasNextPage endCursor } } }"}'
