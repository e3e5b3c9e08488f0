"""A slow, literal plain-Python transcription of tercom 0.8.0's ``TerScorer`` (exact matching).

Independent of :mod:`scoring.edit.ter`: it keeps tercom's own data structures (the ``rloc`` map of
reference phrases to sorted start positions, ``S``/``P`` matrices indexed ``[ref][hyp]``, every
candidate shift evaluated with a full beam search, duplicates included), so the kernels'
shortcuts (resuming the beam search at the first changed column, dropping repeated candidates,
matching phrases with running masks) are checked against the original control flow.
"""

from __future__ import annotations

INF = 999999.0


def min_edit_dist(
    hyp: list[str], ref: list[str], beam: float, costs: dict[str, float]
) -> tuple[float, str]:
    n_r, n_h = len(ref), len(hyp)
    s = [[-1.0] * (n_h + 1) for _ in range(n_r + 1)]
    p = [["0"] * (n_h + 1) for _ in range(n_r + 1)]
    s[0][0] = 0.0
    current_best = INF
    current_first_good = 0
    cur_last_good = 0
    for j in range(n_h + 1):
        last_best = current_best
        current_best = INF
        first_good = current_first_good
        current_first_good = -1
        last_good = cur_last_good
        cur_last_good = -1
        i = first_good
        while i <= n_r:
            if i > last_good:
                break
            if s[i][j] < 0:
                i += 1
                continue
            score = s[i][j]
            if j < n_h and score > last_best + beam:
                i += 1
                continue
            if current_first_good == -1:
                current_first_good = i
            if i < n_r and j < n_h:
                if ref[i] == hyp[j]:
                    cost = costs["match"] + score
                    if s[i + 1][j + 1] == -1 or cost < s[i + 1][j + 1]:
                        s[i + 1][j + 1] = cost
                        p[i + 1][j + 1] = " "
                    if cost < current_best:
                        current_best = cost
                else:
                    cost = costs["substitute"] + score
                    if s[i + 1][j + 1] < 0 or cost < s[i + 1][j + 1]:
                        s[i + 1][j + 1] = cost
                        p[i + 1][j + 1] = "S"
                        if cost < current_best:
                            current_best = cost
            cur_last_good = i + 1
            if j < n_h:
                icost = score + costs["insert"]
                if s[i][j + 1] < 0 or s[i][j + 1] > icost:
                    s[i][j + 1] = icost
                    p[i][j + 1] = "I"
            if i < n_r:
                dcost = score + costs["delete"]
                if s[i + 1][j] < 0.0 or s[i + 1][j] > dcost:
                    s[i + 1][j] = dcost
                    p[i + 1][j] = "D"
                    if i >= last_good:
                        last_good = i + 1
            i += 1
    path: list[str] = []
    i, j = n_r, n_h
    while i > 0 or j > 0:
        sym = p[i][j]
        path.append(sym)
        if sym in (" ", "S"):
            i -= 1
            j -= 1
        elif sym == "D":
            i -= 1
        elif sym == "I":
            j -= 1
        else:
            raise AssertionError(f"invalid path symbol {sym!r}")
    return s[n_r][n_h], "".join(reversed(path))


def build_word_matches(
    hyp: list[str], ref: list[str], max_size: int
) -> dict[tuple[str, ...], list[int]]:
    words = set(hyp)
    cor = [w in words for w in ref]
    out: dict[tuple[str, ...], set[int]] = {}
    for start in range(len(ref)):
        if not cor[start]:
            continue
        end = start
        while end < len(ref) and end - start <= max_size and cor[end]:
            out.setdefault(tuple(ref[start : end + 1]), set()).add(start)
            end += 1
    return {k: sorted(v) for k, v in out.items()}


def find_align_err(path: str, n_h: int, n_r: int) -> tuple[list[bool], list[bool], list[int]]:
    herr = [False] * n_h
    rerr = [False] * n_r
    ralign = [0] * n_r
    hpos = rpos = -1
    for sym in path:
        if sym == " ":
            hpos += 1
            rpos += 1
            herr[hpos] = False
            rerr[rpos] = False
            ralign[rpos] = hpos
        elif sym == "S":
            hpos += 1
            rpos += 1
            herr[hpos] = True
            rerr[rpos] = True
            ralign[rpos] = hpos
        elif sym == "I":
            hpos += 1
            herr[hpos] = True
        else:
            rpos += 1
            rerr[rpos] = True
            ralign[rpos] = hpos
    return herr, rerr, ralign


def gather_shifts(
    cur: list[str],
    rloc: dict[tuple[str, ...], list[int]],
    herr: list[bool],
    rerr: list[bool],
    ralign: list[int],
    max_size: int,
    max_dist: int,
) -> list[list[tuple[int, int, int, int]]]:
    allshifts: list[list[tuple[int, int, int, int]]] = [[] for _ in range(max_size + 1)]
    for start in range(len(cur)):
        key = (cur[start],)
        if key not in rloc:
            continue
        ok = False
        for moveto in rloc[key]:
            if (
                start != ralign[moveto]
                and ralign[moveto] - start <= max_dist
                and start - ralign[moveto] - 1 <= max_dist
            ):
                ok = True
                break
        if not ok:
            continue
        ok = True
        end = start
        while ok and end < len(cur) and end < start + max_size:
            cand = tuple(cur[start : end + 1])
            ok = False
            if cand not in rloc:
                end += 1
                continue
            if not any(herr[start : end + 1]):
                ok = True
                end += 1
                continue
            for moveto in rloc[cand]:
                ra = ralign[moveto]
                if not (
                    ra != start
                    and (ra < start or ra > end)
                    and ra - start <= max_dist
                    and start - ra <= max_dist
                ):
                    continue
                ok = True
                if not any(rerr[moveto : moveto + end - start + 1]):
                    continue
                for roff in range(-1, end - start + 1):
                    if roff == -1 and moveto == 0:
                        allshifts[end - start].append((start, end, -1, -1))
                    elif start != ralign[moveto + roff] and (
                        roff == 0 or ralign[moveto + roff] != ralign[moveto]
                    ):
                        allshifts[end - start].append(
                            (start, end, moveto + roff, ralign[moveto + roff])
                        )
            end += 1
    return allshifts


def perform_shift(words: list[str], start: int, end: int, newloc: int) -> list[str]:
    seg = words[start : end + 1]
    if newloc == -1:
        return seg + words[:start] + words[end + 1 :]
    if newloc < start:
        return words[: newloc + 1] + seg + words[newloc + 1 : start] + words[end + 1 :]
    if newloc > end:
        return words[:start] + words[end + 1 : newloc + 1] + seg + words[newloc + 1 :]
    shift = newloc - start
    return words[:start] + words[end + 1 : end + 1 + shift] + seg + words[end + 1 + shift :]


def tercom(
    hyp: list[str],
    ref: list[str],
    *,
    beam: float = 20.0,
    max_size: int = 10,
    max_dist: int = 50,
    costs: dict[str, float] | None = None,
) -> tuple[float, list[str], str, list[tuple[int, int, int, int]]]:
    """``(num_edits, hyp after shifts, alignment, shifts)`` as tercom computes them."""
    c = {"match": 0.0, "substitute": 1.0, "insert": 1.0, "delete": 1.0, "shift": 1.0}
    c.update(costs or {})
    if not hyp or not ref:
        return (
            float(len(ref) if not hyp else len(hyp)),
            hyp,
            "D" * len(ref) if not hyp else "I" * len(hyp),
            [],
        )
    rloc = build_word_matches(hyp, ref, max_size)
    cur = list(hyp)
    cur_ed, cur_path = min_edit_dist(cur, ref, beam, c)
    edits = 0.0
    shifts: list[tuple[int, int, int, int]] = []
    while True:
        herr, rerr, ralign = find_align_err(cur_path, len(cur), len(ref))
        poss = gather_shifts(cur, rloc, herr, rerr, ralign, max_size, max_dist)
        curerr = cur_ed
        best_cost = 0.0
        best_ed, best_path, best_words = cur_ed, cur_path, cur
        best_shift = None
        for i in range(len(poss) - 1, -1, -1):
            maxfix = 2.0 * (1 + i)
            curfix = curerr - (best_cost + best_ed)
            if curfix > maxfix or (best_cost != 0 and curfix == maxfix):
                break
            for sh in poss[i]:
                curfix = curerr - (best_cost + best_ed)
                if curfix > maxfix or (best_cost != 0 and curfix == maxfix):
                    break
                words = perform_shift(cur, sh[0], sh[1], sh[3])
                ed, path = min_edit_dist(words, ref, beam, c)
                gain = (best_ed + best_cost) - (ed + c["shift"])
                if gain > 0 or (best_cost == 0 and gain == 0):
                    best_shift = sh
                    best_cost = c["shift"]
                    best_ed, best_path, best_words = ed, path, words
        if best_shift is None:
            break
        shifts.append(best_shift)
        edits += best_cost
        cur, cur_ed, cur_path = best_words, best_ed, best_path
    return cur_ed + edits, cur, cur_path, shifts
