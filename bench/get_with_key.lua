-- wrk script: GET with the API key header (LC_KEY from the environment).
wrk.headers["X-Api-Key"] = os.getenv("LC_KEY")
