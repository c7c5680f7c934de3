"""The official Gemini SDK (google-genai) through omnid's Gemini-compatible proxy.

Nothing here knows about Omni but the base URL: every request goes through omnid's
retries, breaker and diagnostics. Run with omnid started with --proxy-listen:

    GEMINI_API_KEY=... python3 gemini_sdk.py http://127.0.0.1:PORT MODEL
"""

import os
import sys

from google import genai
from google.genai import types


def main() -> None:
    base_url, model = sys.argv[1], sys.argv[2]
    client = genai.Client(
        api_key=os.environ["GEMINI_API_KEY"],
        http_options=types.HttpOptions(base_url=base_url),
    )
    whole = client.models.generate_content(model=model, contents="hello from the SDK")
    print("whole:", whole.text)
    pieces = client.models.generate_content_stream(model=model, contents="and streamed")
    print("streamed:", "".join(piece.text or "" for piece in pieces))
    tokens = client.models.count_tokens(model=model, contents="count me")
    print("tokens:", tokens.total_tokens)


if __name__ == "__main__":
    main()
