"""Which NLTK resources a scorer or an aligner needs with its options, and which of them are
missing here, with the one command that installs them; and, for the combined scorer with its
``encoder`` feature group, whether the sentence encoder (:mod:`scoring.neural.encoder`) is.

A scorer fails without its resources; so does the ``lexical`` aligner with
``strict_resources``. The other aligners skip the features that need a missing resource and
align with the rest. Callers ask before they start work (a training or a prefill request, a
page that offers them), so that a training that could only fail is refused at once, and a
weaker prefill is said to be weaker. The check finds files on NLTK's search path
(``NLTK_DATA``) and the encoder's model files where it looks for them; it loads nothing. (The
supervised aligner leaves out its encoder features without the encoder, and says so itself.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring import resources
from scoring.aligners.base import aligner_class
from scoring.errors import OptionsError, ResourceMissingError
from scoring.options import Options
from scoring.scorers.base import scorer_class

#: How each resource is named to users.
RESOURCE_NAMES = {
    "wordnet": "WordNet",
    "stopwords": "the stop-word list",
    "tagger": "the POS tagger",
}


@dataclass(frozen=True)
class ResourceNeeds:
    """What ``subject`` (``"the perp scorer"``) needs: each resource with what of the subject
    uses it, those missing here, and whether the subject fails without them (``fatal``) or
    leaves out what uses them."""

    subject: str
    needs: Mapping[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    fatal: bool = True
    #: Why the sentence encoder the subject's options use cannot be found here, with how to
    #: install it ("" when it is found, or not used); the subject fails without it.
    encoder_missing: str = ""

    @property
    def lacking(self) -> bool:
        """Whether anything the subject uses is missing here."""
        return bool(self.missing or self.encoder_missing)

    @property
    def encoder_command(self) -> str:
        """The command that installs the missing sentence encoder ("" when it is not missing)."""
        if not self.encoder_missing:
            return ""
        from scoring.neural import encoder

        return encoder.INSTALL

    @property
    def packages(self) -> tuple[str, ...]:
        """The NLTK package ids of the missing resources."""
        return tuple(resources.nltk_package(name) for name in self.missing)

    @property
    def command(self) -> str:
        """``python -m nltk.downloader wordnet stopwords``: installs what is missing ("" when
        nothing is)."""
        return install_command(self.missing)

    @property
    def skipped(self) -> tuple[str, ...]:
        """What of the subject the missing resources leave out (``"WordNet synonym matches"``)."""
        return tuple(dict.fromkeys(self.needs[name] for name in self.missing))

    def message(self) -> str | None:
        """The refusal (``fatal``) or the warning that says what is missing and how to install
        it; ``None`` when nothing is."""
        parts = []
        if self.missing:
            install = (
                f"install it with `{self.command}` (or point NLTK_DATA at a folder that holds it)"
            )
            if self.fatal:
                what = ", ".join(
                    f"{RESOURCE_NAMES[name]} ({resources.nltk_package(name)}) for "
                    f"{self.needs[name]}"
                    for name in self.missing
                )
                parts.append(f"{self.subject} needs NLTK data this server lacks: {what}; {install}")
            else:
                parts.append(
                    f"{self.subject} will skip {_and(self.skipped)}: the NLTK data "
                    f"{', '.join(self.packages)} is not installed on this server; {install}"
                )
        if self.encoder_missing:
            parts.append(
                f"{self.subject} cannot compute its encoder features: {self.encoder_missing}; "
                'or leave "encoder" out of its groups'
            )
        return ". ".join(parts) or None


def _and(items: tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def install_command(missing: tuple[str, ...] | list[str]) -> str:
    """The one ``python -m nltk.downloader`` command that installs the ``missing`` resources."""
    if not missing:
        return ""
    packages = dict.fromkeys(resources.nltk_package(name) for name in missing)
    return "python -m nltk.downloader " + " ".join(packages)


def resource_needs(
    *,
    scorer: str | None = None,
    aligner: str | None = None,
    options: Mapping[str, Any] | Options | None = None,
) -> ResourceNeeds:
    """What the scorer of kind ``scorer`` or the aligner named ``aligner`` (one of them) needs
    with ``options`` (its options object or JSON options; ``None``: the defaults), and what of
    that is missing on NLTK's search path. An unknown kind, name or option is an
    :class:`~scoring.errors.OptionsError`."""
    if (scorer is None) == (aligner is None):
        raise OptionsError("name a scorer or an aligner, not both or neither")
    if scorer is not None:
        subject = f"the {scorer} scorer"
        options_class = scorer_class(scorer).options_class
    else:
        subject = f"the {aligner} aligner"
        options_class = aligner_class(str(aligner)).options_class
    if options is None:
        chosen: Any = options_class()
    elif isinstance(options, Options):
        chosen = options
    else:
        chosen = options_class.from_dict(options)
    if scorer is not None:
        needs, fatal = _scorer_needs(scorer, chosen), True
    else:
        needs = _aligner_needs(chosen)
        fatal = bool(getattr(chosen, "strict_resources", False))
    missing = tuple(name for name in needs if not resources.installed(name))
    encoder_missing = ""
    if scorer == "combined" and "encoder" in chosen.groups:
        encoder_missing = _encoder_missing()
    return ResourceNeeds(
        subject=subject,
        needs=needs,
        missing=missing,
        fatal=fatal,
        encoder_missing=encoder_missing,
    )


def _encoder_missing() -> str:
    """Why the sentence encoder cannot be found here ("" when it can): the error
    :func:`scoring.neural.encoder.load` would raise, found without reading the model."""
    from scoring.neural import encoder  # numpy and scipy: only when a scorer may use it

    try:
        encoder.model_directory()
    except ResourceMissingError as error:
        return str(error)
    return ""


def _scorer_needs(kind: str, o: Any) -> dict[str, str]:
    """Each resource the scorer uses, with what uses it (in :mod:`scoring.edit.perp`,
    :mod:`scoring.pfsm.features`, :mod:`scoring.mt.features`, :mod:`scoring.scorers.combined`)."""
    needs: dict[str, str] = {}
    if kind == "perp":
        needs["wordnet"] = "TERp's synonym edits"
        if o.stop_words is None:
            needs["stopwords"] = "the words shifts skip"
    elif kind in ("pfsm", "ppda"):
        if o.synonyms:
            needs["wordnet"] = "its synonym edits"
    elif kind == "mt":
        needs["tagger"] = "its POS features and stems"
    elif kind == "combined":
        needs["tagger"] = "its MT-metric features"
        groups = set(o.groups)
        if groups & {"perp", "align", "wordnet"}:
            needs["wordnet"] = "its PERP, aligner and WordNet features"
        if groups & {"perp", "align", "overlap", "wordnet"}:
            needs["stopwords"] = "its content-word features"
    return needs


def _aligner_needs(o: Any) -> dict[str, str]:
    """Each resource the aligner uses (:mod:`scoring.aligners.lexical`, whose matches the
    ``em`` and ``supervised`` aligners use too, and :mod:`scoring.aligners.supervised`), with
    what it leaves out without it."""
    needs: dict[str, str] = {}
    # the em aligner's lexical matches are the lexical aligner's, WordNet included
    wordnet = getattr(o, "wordnet", False) or getattr(o, "lexical", "none") != "none"
    if wordnet:
        needs["wordnet"] = "its WordNet features"
    if wordnet or getattr(o, "ppdb", None):
        needs["stopwords"] = "its stop-word test"
    if getattr(o, "pos", False):
        needs["tagger"] = "its POS features"
    return needs
