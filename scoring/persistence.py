"""One way to keep a trained model: ``to_dict()`` and ``from_dict()``, never pickle.

Every trained model of :mod:`scoring` follows :class:`Persistent`: ``fit(...)`` trains it,
``to_dict()`` gives it as JSON values (numbers, strings, lists, objects) and, for the aligners
only, numeric arrays under ``"arrays"``; the class method ``from_dict(data)`` rebuilds it,
checking every field and raising :class:`~scoring.errors.FormatError` (or
:class:`~scoring.errors.ModelError`) naming the field at fault. The dict is what the web app
stores (``ScorerModel.weights``) and what files hold: :func:`save_json` / :func:`read_json`
write and read a JSON file (``save_scorer`` / ``load_scorer`` for a scorer); an aligner's
arrays go to one ``.npz`` archive with the JSON as its header (``Aligner.save`` /
``Aligner.load``). Loading never runs code.

======================================  ==================================================
model                                   module
======================================  ==================================================
aligners (``Aligner``)                  :mod:`scoring.aligners.base`
scorers, the saved-scorer envelope      :mod:`scoring.scorers.base`
PERP, pFSM / pPDA                       :mod:`scoring.edit.perp`, :mod:`scoring.pfsm.model`
RBF SVMs, ridge, the combined scorer    :mod:`scoring.mt.classifier`, ``scoring.scorers.combined``
Pr(edit) lines of the agreement         :mod:`scoring.alignment.edit_model`
======================================  ==================================================
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, Self, runtime_checkable

from scoring.errors import FormatError
from scoring.files import atomic_output


@runtime_checkable
class Persistent(Protocol):
    """A model kept as a dict: ``to_dict()`` and its inverse, the class method
    ``from_dict()``."""

    def to_dict(self) -> dict[str, Any]: ...

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self: ...


def model_json(data: Mapping[str, Any]) -> str:
    """The text of a model file holding ``data`` (a ``to_dict()``): JSON, keys sorted."""
    return json.dumps(data, sort_keys=True) + "\n"


def save_json(model: Persistent, path: str | Path) -> Path:
    """Write ``model.to_dict()`` to ``path`` (:func:`model_json`), whole or not at all;
    returns the path."""
    target = Path(path)
    with atomic_output(target) as handle:
        handle.write(model_json(model.to_dict()))
    return target


def read_json(path: str | Path) -> Any:
    """The JSON value a model file holds; :class:`FormatError` naming the file otherwise."""
    source = Path(path)
    try:
        return json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FormatError("no such file", path=source) from None
    except UnicodeDecodeError:
        # An aligner's .npz (a zip) given where a scorer's JSON is expected ends here.
        raise FormatError(
            "not a JSON model file (not UTF-8 text; an aligner's .npz model is read by "
            "'align --model', not here)",
            path=source,
        ) from None
    except OSError as error:
        raise FormatError(f"cannot read the model: {error}", path=source) from None
    except json.JSONDecodeError as error:
        raise FormatError(
            f"not a JSON model file ({error.msg})", path=source, line=error.lineno
        ) from None
