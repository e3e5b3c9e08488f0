"""A slow, literal plain-Python transcription of mteval-v13a's segment scoring (one reference).

Independent of :mod:`scoring.mt.metrics`: n-grams are space-joined strings in dicts, as in the
Perl (``Words2Ngrams``, ``compute_ngram_info``, ``score_segment``, ``bleu_score``,
``bleu_score_nosmoothing``, ``nist_score``), including Perl's treatment of the string "0" as false.
"""

from __future__ import annotations

import math
from collections import Counter

MAX_NGRAM = 9


def words_to_ngrams(words: list[str]) -> Counter[str]:
    count: Counter[str] = Counter()
    for start in range(len(words)):
        ngram = None
        for j in range(MAX_NGRAM):
            if start + j >= len(words):
                break
            ngram = words[start + j] if ngram is None else f"{ngram} {words[start + j]}"
            count[ngram] += 1
    return count


def ngram_info(refs: list[list[str]]) -> dict[str, float]:
    counts: Counter[str] = Counter()
    total = 0
    for ref in refs:
        total += len(ref)
        counts.update(words_to_ngrams(ref))
    info = {}
    for ngram, c in counts.items():
        mgram = " ".join(ngram.split(" ")[:-1])
        perl_true = mgram not in ("", "0")
        info[ngram] = -math.log(c / counts[mgram] if perl_true else c / total) / math.log(2)
    return info


def score_segment(
    tst: list[str], ref: list[str], info: dict[str, float]
) -> tuple[int, list[int], list[int], list[int], list[float]]:
    """``(ref_length, match_cnt, tst_cnt, ref_cnt, tst_info)``, lists indexed 1…9 (0 unused)."""
    tst_ngrams = words_to_ngrams(tst)
    ref_ngrams = words_to_ngrams(ref)
    match = [0] * (MAX_NGRAM + 1)
    tst_cnt = [0] * (MAX_NGRAM + 1)
    ref_cnt = [0] * (MAX_NGRAM + 1)
    tst_info = [0.0] * (MAX_NGRAM + 1)
    for j in range(1, MAX_NGRAM + 1):
        tst_cnt[j] = len(tst) - j + 1 if j <= len(tst) else 0
        ref_cnt[j] = len(ref) - j + 1 if j <= len(ref) else 0
    for ngram, c in tst_ngrams.items():
        if ngram not in ref_ngrams:
            continue
        n = len(ngram.split(" "))
        m = min(c, ref_ngrams[ngram])
        tst_info[n] += info.get(ngram, 0.0) * m
        match[n] += m
    return len(ref), match, tst_cnt, ref_cnt, tst_info


def bleu_score(ref_length: int, match: list[int], tst: list[int], order: int) -> float:
    exp_len_score = math.exp(min(0, 1 - ref_length / tst[1])) if tst[1] > 0 else 0.0
    smooth = 1
    score = 0.0
    cum = 0.0
    for j in range(1, order + 1):
        if tst[j] == 0:
            iscore = 0.0
        elif match[j] == 0:
            smooth *= 2
            iscore = math.log(1 / (smooth * tst[j]))
        else:
            iscore = math.log(match[j] / tst[j])
        score += iscore
        cum = math.exp(score / j) * exp_len_score
    return cum


def bleu_score_nosmoothing(ref_length: int, match: list[int], tst: list[int], order: int) -> float:
    score = 0.0
    cum = 0.0
    for j in range(1, order + 1):
        if match[j] == 0:
            cum = 0.0
        else:
            len_score = min(0, 1 - ref_length / tst[1])
            score += math.log(match[j] / tst[j])
            cum = math.exp(score / j + len_score)
    return cum


def nist_length_penalty(ratio: float) -> float:
    if ratio >= 1:
        return 1.0
    if ratio <= 0:
        return 0.0
    beta = -math.log(0.5) / math.log(1.5) / math.log(1.5)
    return math.exp(-beta * math.log(ratio) * math.log(ratio))


def nist_score(tst: list[int], ref: list[int], tst_info: list[float], order: int) -> float:
    score = 0.0
    for n in range(1, order + 1):
        score += tst_info[n] / max(tst[n], 1)
    return score * nist_length_penalty(tst[1] / (ref[1] / 1))
