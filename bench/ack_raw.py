"""Acknowledgement times measured with as little of the sender's own time in them as can be (issue #17).

The first sender (8 threads of ``requests`` in one process) spends about 2.5 ms of CPU per delivery
building and parsing HTTP in Python, under its own GIL, on the 2 cores the server and its judging
also use; and a thread whose previous delivery is still unanswered sends its next one late, timed
from when it was sent, so a server that stalls is partly not measured (coordinated omission). This
one sends as GitHub does and times only the server:

* each delivery on a connection of its own (GitHub keeps none open between deliveries), timed from
  the connect to the answer's last byte;
* its bytes (request line, headers, the signature, the body) built before the clock starts;
* sent at its scheduled time whatever the others are doing (no delivery waits for another's answer);
* from one asyncio loop in a process of its own.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from urllib.parse import urlsplit

CONTENT_LENGTH = re.compile(rb"(?im)^content-length:\s*(\d+)\r?$")
TIMEOUT = 30.0


def requests_bytes(host: str, payloads: list[dict[str, object]], count: int) -> list[bytes]:
    """The ``count`` signed deliveries, as the bytes sent (cycling over ``payloads``)."""
    from oracle_gate.bot.web.signature import sign
    from tests.bot.harness import SECRET

    bodies = [json.dumps(p).encode() for p in payloads]
    out = []
    for i in range(count):
        body = bodies[i % len(bodies)]
        head = (
            "POST /webhook HTTP/1.1\r\n"
            f"Host: {host}\r\n"
            "User-Agent: GitHub-Hookshot/bench\r\n"
            "X-GitHub-Event: pull_request\r\n"
            f"X-GitHub-Delivery: raw-{i}\r\n"
            "Content-Type: application/json\r\n"
            f"X-Hub-Signature-256: {sign(SECRET, body)}\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        )
        out.append(head.encode() + body)
    return out


async def _deliver(host: str, port: int, request: bytes) -> float:
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(request)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = CONTENT_LENGTH.search(head)
        await reader.readexactly(int(length.group(1)) if length else 0)
        took = time.perf_counter() - started
    finally:
        writer.close()
    status = head.split(b" ", 2)[1]
    if status != b"202":
        raise AssertionError(f"answered {status.decode()}: {head[:200]!r}")
    return took


async def _send_all(host: str, port: int, requests: list[bytes], rate: float) -> list[float]:
    loop = asyncio.get_running_loop()
    start = loop.time() + 0.1

    async def scheduled(i: int) -> float:
        await asyncio.sleep(max(0.0, start + i / rate - loop.time()))
        return await asyncio.wait_for(_deliver(host, port, requests[i]), TIMEOUT)

    return list(await asyncio.gather(*(scheduled(i) for i in range(len(requests)))))


def ack_latencies_raw(url: str, payloads: list[dict[str, object]], count: int, rate: float) -> list[float]:
    """Each delivery's answer time, seconds (run in a process of its own)."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    requests = requests_bytes(f"{host}:{port}", payloads, count)
    return asyncio.run(_send_all(host, port, requests, rate))
