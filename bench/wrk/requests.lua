-- Replays requests drawn at random from a key file the benchmark driver wrote from the
-- imported registers, so that every load asks for addresses, streets and typed text that
-- exist, spread over the whole country, instead of repeating one request the caches would
-- answer. One request per line:
--
--   GET /v1/nl/lookup?postcode=1234AB&number=12
--   POST /v1/validate {"countryCode":"NL","address1":"Kerkstraat 12",...}
--
-- usage: wrk -t2 -c32 -d10s --latency -s bench/wrk/requests.lua http://127.0.0.1:PORT -- FILE [BEARER]
--
-- Requests are formatted once, in init, so that wrk spends its share of the two cores on
-- sending them rather than on building them.

local requests = {}

function init(args)
  local file, bearer = args[1], args[2]
  if not file then
    error("requests.lua: give the key file after --")
  end
  for line in io.lines(file) do
    local method, target, body = line:match("^(%u+) (%S+) ?(.*)$")
    if method then
      local headers = {}
      if bearer and bearer ~= "" then
        headers["Authorization"] = "Bearer " .. bearer
      end
      if body == "" then
        body = nil
      else
        headers["Content-Type"] = "application/json"
      end
      requests[#requests + 1] = wrk.format(method, target, headers, body)
    end
  end
  if #requests == 0 then
    error("requests.lua: no requests in " .. file)
  end
  -- Each thread has its own Lua state: the address of a fresh table tells them apart.
  local salt = tonumber(tostring({}):match("0x(%x+)") or "0", 16) or 0
  math.randomseed(os.time() + salt % 1000003)
end

function request()
  return requests[math.random(#requests)]
end
