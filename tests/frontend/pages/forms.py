"""What a browser would post from a server-rendered form: its inputs' names and values, the
selected option of each select, the checked boxes and radios (no browser needed)."""

from __future__ import annotations

from html.parser import HTMLParser


class _FormReader(HTMLParser):
    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id = form_id
        self.inside = False
        self.select: str | None = None
        self.first_option: str | None = None
        self.chosen = False
        self.values: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.inside = found.get("id") == self.form_id
            return
        if not self.inside or "disabled" in found:
            return
        name = found.get("name", "")
        if tag == "input" and name:
            kind = found.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in found:
                return
            if kind not in ("submit", "button"):
                self.values.append((name, found.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "select":
            self.select, self.first_option, self.chosen = name, None, False
        elif tag == "option" and self.select is not None:
            value = found.get("value", "")
            if self.first_option is None:
                self.first_option = value
            if "selected" in found:
                self.values.append((self.select, value))
                self.chosen = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select" and self.select is not None:
            if not self.chosen and self.first_option is not None:
                self.values.append((self.select, self.first_option))
            self.select = None


def form_values(html: str, form_id: str) -> dict[str, list[str]]:
    """The form ``form_id``'s values, each name with every value it would send."""
    reader = _FormReader(form_id)
    reader.feed(html)
    out: dict[str, list[str]] = {}
    for name, value in reader.values:
        out.setdefault(name, []).append(value)
    return out
