-- wrk script: POST an agent reply to one conversation.
-- Set by run.sh through the environment: LC_KEY, LC_MEMBER.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Api-Key"] = os.getenv("LC_KEY")
wrk.body = '{"text":"Thanks for waiting, your parcel ships today.","memberId":"' .. os.getenv("LC_MEMBER") .. '"}'
