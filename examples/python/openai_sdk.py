"""The official OpenAI SDK (openai) through omnid's OpenAI-compatible proxy.

Nothing here knows about Omni but the base URL: every request goes through omnid's
retries, breaker and diagnostics, and its conversations (whole answers and streamed) are
recorded as sessions.
Run with omnid started with --proxy-listen and an OpenAI-compatible provider:

    OPENAI_API_KEY=... python3 openai_sdk.py http://127.0.0.1:PORT/v1 MODEL
"""

import os
import sys

import openai


def main() -> None:
    base_url, model = sys.argv[1], sys.argv[2]
    # max_retries=0: any healing seen here is omnid's, not the SDK's.
    client = openai.OpenAI(api_key=os.environ["OPENAI_API_KEY"], base_url=base_url,
                           max_retries=0)
    whole = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "hello from the SDK"}])
    print("chat whole:", whole.choices[0].message.content)

    chunks = client.chat.completions.create(
        model=model, stream=True, stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "and streamed"}])
    text, usage = "", None
    for chunk in chunks:
        if chunk.choices:
            text += chunk.choices[0].delta.content or ""
        usage = chunk.usage or usage
    print("chat streamed:", text)
    print("chat usage:", usage.total_tokens if usage else None)

    with client.responses.stream(model=model, input="list the files") as stream:
        streamed = "".join(event.delta for event in stream
                           if event.type == "response.output_text.delta")
        final = stream.get_final_response()
    print("responses streamed:", streamed)
    print("responses final:", final.status, final.output_text == streamed)


if __name__ == "__main__":
    main()
