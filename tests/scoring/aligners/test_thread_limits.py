"""The supervised aligner fits its trees on one thread, even in a process's first training."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# A fresh interpreter (scikit-learn not imported yet, as in a new worker) trains the aligner and
# records, at each fit's end, how many threads scikit-learn's OpenMP runtime was allowed.
SCRIPT = """
import json
from threadpoolctl import threadpool_info
from scoring.aligners import trees
from scoring.aligners.options import SupervisedOptions
from scoring.aligners.supervised import SupervisedAligner
from scoring.alignment.links import Alignment

seen = []
copy = trees.TreeEnsemble.from_sklearn.__func__

def recording(cls, model, *args):
    seen.append([i["num_threads"] for i in threadpool_info() if i["user_api"] == "openmp"])
    return copy(cls, model, *args)

trees.TreeEnsemble.from_sklearn = classmethod(recording)
words = ["cat", "dog", "bird", "house", "tree", "river", "stone", "cloud"]
pairs, gold = [], []
for k in range(30):  # 60 links: the aligner refuses fewer than 50
    source = [words[k % 8], "the", words[(k + 1) % 8], "of", words[(k + 3) % 8]]
    target = [words[(k + 1) % 8], "a", words[k % 8], words[(k + 5) % 8]]
    links = [(i, j) for i, a in enumerate(source) for j, b in enumerate(target) if a == b]
    pairs.append((source, target))
    gold.append(Alignment.from_links(len(source), len(target), sure=links))
options = SupervisedOptions(
    wordnet=False, pos=False, encoder=False, trees=5, learning_rate=0.3, em_hmm_iterations=1
)
SupervisedAligner(options).fit(pairs, gold)
print(json.dumps(seen))
"""


def test_a_fresh_process_fits_its_trees_on_one_thread() -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen, "no tree ensemble was fitted"
    assert all(threads == [1] for threads in seen), seen


def test_one_thread_limits_every_pool_and_finds_them_once() -> None:
    """Finding the pools reads the process's memory map (3 ms): a prefill enters the limit
    once per pair, so they are found once per process."""
    from threadpoolctl import threadpool_info

    from scoring.aligners import trees

    with trees.one_thread():
        pools = [i for i in threadpool_info() if i["user_api"] in ("blas", "openmp")]
        assert pools and all(pool["num_threads"] == 1 for pool in pools), pools
    assert trees._threadpools() is trees._threadpools()
