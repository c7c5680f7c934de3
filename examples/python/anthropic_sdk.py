"""The official Anthropic SDK (anthropic) through omnid's Anthropic-compatible proxy.

Nothing here knows about Omni but the base URL: every request goes through omnid's
retries, breaker and diagnostics, and its conversations (whole answers and streamed) are
recorded as sessions.
Run with omnid started with --proxy-listen and an Anthropic provider:

    ANTHROPIC_API_KEY=... python3 anthropic_sdk.py http://127.0.0.1:PORT MODEL
"""

import os
import sys

import anthropic

TOOLS = [{"name": "get_weather", "description": "The weather in a city.",
          "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]


def main() -> None:
    base_url, model = sys.argv[1], sys.argv[2]
    # max_retries=0: any healing seen here is omnid's, not the SDK's.
    client = anthropic.Anthropic(api_key=os.environ["ANTHROPIC_API_KEY"], base_url=base_url,
                                 max_retries=0)
    thinking = {"type": "enabled", "budget_tokens": 1024}
    messages = [{"role": "user", "content": "weather in Paris?"}]
    with client.messages.stream(model=model, max_tokens=2048, messages=messages,
                                tools=TOOLS, thinking=thinking) as stream:
        first = stream.get_final_message()
    use = first.content[-1]
    print("first:", [block.type for block in first.content], use.name, use.input,
          first.stop_reason)

    # The tool's result goes back after the whole assistant turn, its thinking signed.
    messages += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id,
                                      "content": "21 degrees"}]},
    ]
    with client.messages.stream(model=model, max_tokens=2048, messages=messages,
                                tools=TOOLS, thinking=thinking) as stream:
        print("second:", "".join(stream.text_stream))

    whole = client.messages.create(model=model, max_tokens=100,
                                   messages=[{"role": "user", "content": "hello"}])
    print("whole:", whole.content[0].text, whole.stop_reason)
    print("count:", client.messages.count_tokens(model=model, messages=messages[:1]).input_tokens)


if __name__ == "__main__":
    main()
