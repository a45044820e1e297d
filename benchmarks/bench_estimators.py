"""Benchmark: the token estimators against real tokenizers, per kind of text (figures, not a test).

The tokenizers are the vocabulary files shipped inside the ``litellm`` wheel (the ``bench``
extra; nothing is downloaded at run time and litellm itself is never imported): OpenAI's
``cl100k_base`` and ``o200k_base`` (read by ``tiktoken`` from litellm's folder, its cache files,
each checked against its hash) and Anthropic's legacy Claude tokenizer and DeepSeek V3's (read by
``tokenizers``). For each sample of ``tests/support/fixtures/token-samples.json`` (English, code, Chinese,
emoji, hex ids, ...) it prints every tokenizer's count and each estimator's ratio to the largest
count: ``upper_bound`` must never be below 1.00; ``chars4`` (Pi's heuristic) and ``ascii/3+1``
(ASCII characters / 3, other code points 1 token each) show how far they undercount. Then the same
over every priced text of the Pi sessions in ``../shared`` (skipped, with a note, where absent),
and the time of each estimator over those texts against ``cl100k_base``'s encoder in the same run.

``--record`` writes the counts into the samples file, which the tests read (they never need a
tokenizer): run it after changing a sample or the tokenizers.

    pip install -e '.[bench]' && python benchmarks/bench_estimators.py [--record]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from workbook.paths import REPO, SOLUTIONS

sys.path.insert(0, str(SOLUTIONS.parent))

from compaction_lab.provided.estimators import chars4, priced_parts, upper_bound  # noqa: E402

SAMPLES = REPO / "tests" / "support" / "fixtures" / "token-samples.json"
PI_SESSIONS = REPO.parent / "shared" / "fixtures" / "pi-sessions"
TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
"""Where tiktoken would fetch an encoding; its cache file is named by this URL's SHA-1."""


def ascii3(text: str) -> int:
    """The simplest rule that prices scripts at all: ASCII characters / 3, any other code point 1 token."""
    ascii_chars = sum(char.isascii() for char in text)
    return math.ceil(ascii_chars / 3) + len(text) - ascii_chars


ESTIMATORS: dict[str, Callable[[str], int]] = {"upper_bound": upper_bound, "chars4": chars4, "ascii/3+1": ascii3}
"""The library's two estimators for real sessions, and the simplest rule, shown for comparison."""

Tokenizer = Callable[[str], int]


def tokenizers() -> dict[str, Tokenizer]:
    """The four real tokenizers from the litellm wheel's files, by name; exits with a message without it."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        sys.exit(
            "bench_estimators: needs the litellm wheel, which ships the tokenizer files: pip install -e '.[bench]'"
        )
    folder = Path(spec.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    import tiktoken
    from tokenizers import Tokenizer as HfTokenizer

    found: dict[str, Tokenizer] = {}
    for name in ("cl100k", "o200k"):
        if not (folder / hashlib.sha1(TIKTOKEN_URL.format(name=f"{name}_base").encode()).hexdigest()).is_file():
            sys.exit(f"bench_estimators: {name}_base is not in {folder}; refusing to download it")
        encoding = tiktoken.get_encoding(f"{name}_base")
        found[name] = lambda text, encoding=encoding: len(encoding.encode(text, disallowed_special=()))
    for name, file in (("claude-legacy", "anthropic_tokenizer.json"), ("deepseek-v3", "deepseek_tokenizer.json")):
        tokenizer = HfTokenizer.from_file(str(folder / file))
        found[name] = lambda text, tokenizer=tokenizer: len(tokenizer.encode(text, add_special_tokens=False).ids)
    return found


def per_kind(samples: list[dict], real: dict[str, Tokenizer], console: Console) -> None:
    """One row per kind of text: each tokenizer's count, and each estimator over the largest count."""
    table = Table(
        title="Estimate / largest real count, per kind of text (upper_bound must be >= 1.00)", title_justify="left"
    )
    for column in ("kind", "chars", *real, *ESTIMATORS):
        table.add_column(column, justify="left" if column == "kind" else "right", no_wrap=True)
    for sample in samples:
        text = sample["text"]
        counts = {name: count(text) for name, count in real.items()}
        sample["tokens"] = counts
        most = max(counts.values())
        ratios = [estimate(text) / most for estimate in ESTIMATORS.values()]
        table.add_row(
            sample["kind"],
            str(len(text)),
            *map(str, counts.values()),
            *(f"[{'red' if ratio < 1 else 'green'}]{ratio:.2f}[/]" for ratio in ratios),
        )
    console.print(table)


def session_texts() -> list[str]:
    """Every text the estimators price in the messages of ``../shared``'s Pi sessions."""
    texts: list[str] = []
    for file in sorted(PI_SESSIONS.glob("*.jsonl")):
        for line in file.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("type") == "message" and entry["message"].get("role") in ("user", "assistant", "toolResult"):
                texts += [text for text in priced_parts(entry["message"])[0] if text]
    return texts


def on_sessions(real: dict[str, Tokenizer], console: Console) -> None:
    """Totals and the texts each estimator undercounts over the real sessions, and the time per text."""
    if not PI_SESSIONS.is_dir():
        console.print(f"real sessions: skipped, {PI_SESSIONS} is absent")
        return
    texts = session_texts()
    largest = [max(count(text) for count in real.values()) for text in texts]
    table = Table(title=f"The {len(texts):,} priced texts of the Pi sessions in {PI_SESSIONS}", title_justify="left")
    for column in ("estimator", "total / largest total", "texts undercounted", "lowest ratio", "time / cl100k"):
        table.add_column(column, justify="left" if column == "estimator" else "right")
    encode_time = _time(real["cl100k"], texts)
    for name, estimate in ESTIMATORS.items():
        estimates = [estimate(text) for text in texts]
        under = sum(got < want for got, want in zip(estimates, largest, strict=True))
        lowest = min(got / want for got, want in zip(estimates, largest, strict=True) if want)
        table.add_row(
            name,
            f"{sum(estimates) / sum(largest):.2f}",
            f"{under:,}",
            f"{lowest:.2f}",
            f"{_time(estimate, texts) / encode_time:.3f}",
        )
    console.print(table)


def _time(function: Callable[[str], int], texts: list[str]) -> float:
    start = time.perf_counter()
    for text in texts:
        function(text)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help=f"write the counts into {SAMPLES.name}")
    args = parser.parse_args()
    console = Console(width=150)
    real = tokenizers()
    data = json.loads(SAMPLES.read_text(encoding="utf-8"))
    per_kind(data["samples"], real, console)
    on_sessions(real, console)
    if args.record:
        SAMPLES.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        console.print(f"wrote the counts to {SAMPLES}")


if __name__ == "__main__":
    main()
