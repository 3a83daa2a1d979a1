-- wrk script: POST an agent reply, each request to the next of several
-- conversations (round robin), so concurrent senders write different rows.
-- Set by writes.sh through the environment: LC_KEY, LC_MEMBER, LC_CONVS
-- (conversation ids, comma-separated).
local convs = {}
for id in string.gmatch(os.getenv("LC_CONVS"), "[^,]+") do convs[#convs + 1] = id end
local body = '{"text":"Thanks for waiting, your parcel ships today.","memberId":"' .. os.getenv("LC_MEMBER") .. '"}'
local headers = {["Content-Type"] = "application/json", ["X-Api-Key"] = os.getenv("LC_KEY")}
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", "/chat/conversations/" .. convs[(n % #convs) + 1] .. "/messages", headers, body)
end

-- LC_SHOW_REFUSED=1: the first three refused requests' status and body on
-- stderr (off by default: a response hook makes wrk keep every body).
if (os.getenv("LC_SHOW_REFUSED") or "") ~= "" then
  local shown = 0
  response = function(status, _, body)
    if status >= 300 and shown < 3 then
      shown = shown + 1
      io.stderr:write("refused: " .. status .. " " .. body .. "\n")
    end
  end
end
