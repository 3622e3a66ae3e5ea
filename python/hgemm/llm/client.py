"""An OpenAI-compatible chat-completions client on the standard library alone, so that the package
gains no dependency and the CPU tests need nothing installed.

The key comes from $HGEMM_LLM_API_KEY only: an argument would end up in shell histories and
process listings. Every request and response of a run goes to a JSONL transcript with the key and
anything shaped like an Authorization header or a bearer token replaced by [REDACTED]."""

import email.utils
import http.client
import json
import os
import re
import socket
import time
import urllib.error
import urllib.request

KEY_ENV = "HGEMM_LLM_API_KEY"
REDACTED = "[REDACTED]"


class LLMError(RuntimeError):
    """A request that did not produce a usable response: the message says which and why."""


class LLMTimeout(LLMError):
    pass


class LLMHTTPError(LLMError):
    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class BudgetExhausted(LLMError):
    """The run's budget of requests or tokens is spent; nothing more is sent."""


def estimate_tokens(text):
    # chars/4 is the usual rule of thumb for English and JSON under BPE tokenizers; the budget
    # only has to be conservative, not exact.
    return (len(text) + 3) // 4


_HEADER_PATTERNS = [
    re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?)[^\"'\\\r\n,}]+"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"),
    re.compile(r"(?i)(api[-_]?key[\"']?\s*[:=]\s*[\"']?)[^\"'\\\r\n,}\s]+"),
]


def redact(text, secrets=()):
    """`text` with every secret and every Authorization header, bearer token or api-key value
    replaced by [REDACTED]."""
    for s in secrets:
        if s:
            text = text.replace(s, REDACTED)
            text = text.replace(json.dumps(s)[1:-1], REDACTED)
    for pattern in _HEADER_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def _redact_tree(value, secrets):
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {k: _redact_tree(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redact_tree(v, secrets) for v in value]
    return value


class Transcript:
    """Appends one JSON object a line. Every string in it is redacted before it is written, so a
    secret cannot slip through in a field nobody thought of, and the line stays valid JSON."""

    def __init__(self, path, secrets=()):
        self.path = path
        self._secrets = [s for s in secrets if s]
        if path:
            parent = os.path.dirname(os.path.abspath(path))
            os.makedirs(parent, exist_ok=True)

    def write(self, event, **fields):
        if not self.path:
            return
        record = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "event": event}
        record.update(fields)
        line = json.dumps(_redact_tree(record, self._secrets))
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


class Budget:
    """Requests and tokens one run may spend. Every HTTP attempt counts as a request (a retry
    costs the provider as much as the first try); tokens are the response's usage when it reports
    one, else the chars/4 estimate of prompt and reply."""

    def __init__(self, requests=20, tokens=200_000):
        if not isinstance(requests, int) or requests < 1:
            raise ValueError(f"budget of requests must be a positive int, got {requests!r}")
        if not isinstance(tokens, int) or tokens < 1:
            raise ValueError(f"budget of tokens must be a positive int, got {tokens!r}")
        self.requests = requests
        self.tokens = tokens
        self.requests_used = 0
        self.tokens_used = 0

    def reserve(self, prompt_tokens):
        if self.requests_used >= self.requests:
            raise BudgetExhausted(f"LLM budget spent: {self.requests_used} of {self.requests} "
                                  "requests used; raise --budget-requests to send more")
        if self.tokens_used + prompt_tokens > self.tokens:
            raise BudgetExhausted(f"LLM budget spent: {self.tokens_used} of {self.tokens} tokens "
                                  f"used and the next prompt needs about {prompt_tokens}; raise "
                                  "--budget-tokens to send more")
        self.requests_used += 1

    def charge(self, tokens):
        self.tokens_used += tokens


def _retry_after_seconds(value):
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class ChatClient:
    """chat(messages) -> the reply's text. Retries HTTP 429, 5xx and time-outs up to `max_retries`
    times with exponential back-off (`backoff` * 2**attempt, at most `max_wait` seconds), honouring
    Retry-After; a server that asks for more than `max_wait` ends the call rather than stalling
    the run. Other HTTP errors and unreadable replies raise LLMError at once."""

    def __init__(self, url, model, *, timeout=60.0, max_retries=3, backoff=1.0, max_wait=60.0,
                 budget=None, transcript=None, sleep=time.sleep):
        if not url or not isinstance(url, str):
            raise ValueError("an LLM endpoint URL is required (--llm-url)")
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"the LLM endpoint must be an http:// or https:// URL, got {url!r}")
        if not model or not isinstance(model, str):
            raise ValueError("a model name is required (--llm-model)")
        if not (isinstance(timeout, (int, float)) and timeout > 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        url = url.rstrip("/")
        self.url = url if url.endswith("/chat/completions") else url + "/chat/completions"
        self.model = model
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.max_wait = float(max_wait)
        self.budget = budget or Budget()
        self._key = os.environ.get(KEY_ENV) or None
        self.transcript = transcript if isinstance(transcript, Transcript) else \
            Transcript(transcript, [self._key] if self._key else [])
        self._sleep = sleep

    def _headers(self):
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def _wait(self, attempt, retry_after, reason):
        wait = retry_after if retry_after is not None else self.backoff * (2 ** attempt)
        if wait > self.max_wait:
            raise LLMError(f"{reason}: the server asks to wait {wait:.0f} s, over the "
                           f"{self.max_wait:.0f} s limit")
        self.transcript.write("retry", attempt=attempt, wait_s=wait, reason=reason)
        self._sleep(wait)

    def chat(self, messages, *, max_tokens=2048, temperature=0.0, response_format=None):
        body = {"model": self.model, "messages": messages, "temperature": temperature,
                "max_tokens": max_tokens}
        if response_format is not None:
            body["response_format"] = response_format
        data = json.dumps(body).encode("utf-8")
        prompt_tokens = estimate_tokens("".join(m.get("content", "") for m in messages))
        last = None
        for attempt in range(self.max_retries + 1):
            self.budget.reserve(prompt_tokens)
            self.transcript.write("request", attempt=attempt, url=self.url,
                                  headers=self._headers(), body=body)
            request = urllib.request.Request(self.url, data=data, headers=self._headers(),
                                             method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read().decode("utf-8", errors="replace")
                    status = response.status
            except urllib.error.HTTPError as e:
                text = e.read().decode("utf-8", errors="replace")[:2000]
                self.budget.charge(prompt_tokens)
                self.transcript.write("response", attempt=attempt, status=e.code, body=text)
                last = f"HTTP {e.code} from {self.url}"
                if e.code == 429 or 500 <= e.code < 600:
                    if attempt < self.max_retries:
                        self._wait(attempt, _retry_after_seconds(e.headers.get("Retry-After")),
                                   last)
                        continue
                    raise LLMHTTPError(f"{last}, still after {self.max_retries} retries",
                                       e.code) from None
                raise LLMHTTPError(f"{last}: {redact(text[:300], [self._key or ''])}",
                                   e.code) from None
            except (OSError, http.client.HTTPException) as e:
                timed_out = isinstance(e, (socket.timeout, TimeoutError)) or isinstance(
                    getattr(e, "reason", None), (socket.timeout, TimeoutError))
                if not timed_out:
                    reason = getattr(e, "reason", None) or e
                    raise LLMError(f"cannot reach {self.url}: {reason}") from None
                self.budget.charge(prompt_tokens)
                self.transcript.write("timeout", attempt=attempt, timeout_s=self.timeout)
                last = f"no response from {self.url} within {self.timeout:g} s"
                if attempt < self.max_retries:
                    self._wait(attempt, None, last)
                    continue
                raise LLMTimeout(f"{last}, still after {self.max_retries} retries") from None
            return self._reply(raw, status, attempt, prompt_tokens)
        raise LLMError(last or "no attempt was made")

    def _reply(self, raw, status, attempt, prompt_tokens):
        self.transcript.write("response", attempt=attempt, status=status, body=raw[:100_000])
        try:
            doc = json.loads(raw)
            content = doc["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            self.budget.charge(prompt_tokens + estimate_tokens(raw))
            raise LLMError(f"the reply from {self.url} is not a chat completion "
                           f"(no choices[0].message.content): {raw[:200]!r}") from None
        if not isinstance(content, str):
            raise LLMError("the reply's choices[0].message.content is not a string")
        usage = doc.get("usage") if isinstance(doc, dict) else None
        total = usage.get("total_tokens") if isinstance(usage, dict) else None
        if isinstance(total, int) and not isinstance(total, bool) and total >= 0:
            self.budget.charge(total)
        else:
            self.budget.charge(prompt_tokens + estimate_tokens(content))
        return content
