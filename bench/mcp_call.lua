-- wrk script: POST /mcp tools/call of LC_TOOL (faq_retrieval or
-- product_lookup), rotating through queries so no two consecutive requests
-- search the same words. LC_APP and LC_KEY come from the environment.
local tool = os.getenv("LC_TOOL")
local faqQueries = {"how do I track my shipping", "refund for my order", "exchange sizing", "gift card payment",
                    "cancel order change", "wash and care", "international delivery times", "use a discount code",
                    "loyalty points", "store pickup invoice", "repair warranty", "pre-order stock"}
local productQueries = {"merino sweater", "waterproof jacket navy", "linen shirt", "leather boots",
                        "organic cotton hoodie", "down parka", "cashmere scarf", "packable vest",
                        "recycled nylon backpack", "slim denim trousers", "wool socks", "silk dress"}
local queries = tool == "faq_retrieval" and faqQueries or productQueries
local headers = {["Content-Type"] = "application/json", ["Accept"] = "application/json, text/event-stream",
                 ["X-App-Id"] = os.getenv("LC_APP"), ["Authorization"] = "Bearer " .. os.getenv("LC_KEY")}
local n = 0
request = function()
  n = n + 1
  local q = queries[(n % #queries) + 1]
  local body = '{"jsonrpc":"2.0","id":' .. n .. ',"method":"tools/call","params":{"name":"' .. tool ..
               '","arguments":{"query":"' .. q .. '","limit":5}}}'
  return wrk.format("POST", "/mcp", headers, body)
end
