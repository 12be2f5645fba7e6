"""The descriptor's JSON grammar (RFC 8259, strict), parsed the same way as the Java reader's (``JsonText``): the
same first error at the same place, so both refuse bad text with the same line (docs/interop-format.md, "Rules of the
text"). One object; objects and arrays nest at most :data:`MAX_DEPTH` deep; a key given twice is refused where it
appears; integers of at most 20 characters become ``int``, every other number is kept as written (:class:`Number`).
"""
from __future__ import annotations

import json
import re
from typing import Any

#: The deepest nesting of objects and arrays read: a descriptor needs 3, unknown fields get room beside it.
MAX_DEPTH = 64
_SPACE = re.compile(r"[ \t\n\r]*")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]+')  # a run of a string's characters that need no look
_DIGIT_RUN = re.compile(r"[0-9]*")
_DIGITS = "0123456789"
_HEX_DIGITS = "0123456789abcdefABCDEF"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class Number:
    """A JSON number kept as written: a fraction, an exponent, or an integer of more than 20 characters."""
    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal

    def __repr__(self) -> str:
        return self.literal


def quoted(value: str) -> str:
    """``value`` as a JSON string of the format's rules: quoted, ASCII, escaped (UTF-16 units above 0x7e)."""
    return json.dumps(value, ensure_ascii=True)


def clip(value: str) -> str:
    """A string of the input escaped as the writer escapes it (no quotes), at most 60 characters."""
    return cut(quoted(value)[1:-1])


def shown(value: str) -> str:
    """A string of the input in double quotes, escaped as the writer writes it, at most 60 characters."""
    return cut(quoted(value))


def cut(text: str) -> str:
    return text[:57] + "..." if len(text) > 60 else text


def parse_object(text: str, error: type[Exception]) -> dict[str, Any]:
    """Parses one JSON object into dicts, lists, strings, ints, :class:`Number`, booleans and None; bad text raises
    ``error`` (the reader's own) with one line."""
    p = _Parser(text, error)
    p.skip_space()
    if p.at < len(text) and text[p.at] != "{":
        raise p.error("descriptor: not a JSON object")
    value = p.value("", 0)
    p.skip_space()
    if p.at < len(text):
        raise p.error(f"descriptor: text after the JSON object {p.where()}")
    return value


class _Parser:
    def __init__(self, text: str, error: type[Exception]) -> None:
        self.text = text
        self.error = error
        self.at = 0

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else "\0"

    def skip_space(self) -> None:
        self.at = _SPACE.match(self.text, self.at).end()

    def value(self, path: str, depth: int) -> Any:
        self.skip_space()
        c = self.peek()
        if c in "{[":
            if depth == MAX_DEPTH:
                raise self.error(f"descriptor: JSON nested deeper than {MAX_DEPTH} levels {self.where()}")
            return self.object(path, depth + 1) if c == "{" else self.array(path, depth + 1)
        if c == '"':
            return self.string()
        for word, v in (("true", True), ("false", False), ("null", None)):
            if c == word[0]:
                if not self.text.startswith(word, self.at):
                    raise self.invalid()
                self.at += len(word)
                return v
        if c == "-" or c in _DIGITS:
            return self.number()
        raise self.invalid()

    def object(self, path: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        self.at += 1
        self.skip_space()
        if self.peek() == "}":
            self.at += 1
            return out
        while True:
            self.skip_space()
            if self.peek() != '"':
                raise self.invalid()
            name = self.string()
            field = f"{path}.{name}" if path else name
            if name in out:
                raise self.error(f"descriptor: field '{clip(field)}' is given twice")
            self.skip_space()
            self.expect(":")
            out[name] = self.value(field, depth)
            self.skip_space()
            if self.peek() == "}":
                self.at += 1
                return out
            self.expect(",")

    def array(self, path: str, depth: int) -> list[Any]:
        out: list[Any] = []
        self.at += 1
        self.skip_space()
        if self.peek() == "]":
            self.at += 1
            return out
        while True:
            out.append(self.value(f"{path}[{len(out)}]", depth))
            self.skip_space()
            if self.peek() == "]":
                self.at += 1
                return out
            self.expect(",")

    def string(self) -> str:
        parts: list[str] = []
        self.at += 1
        while True:
            c = self.peek()
            if c == '"':
                self.at += 1
                return "".join(parts)
            if c < " ":  # a control character, or the end of the text
                raise self.invalid()
            if c != "\\":
                run = _PLAIN.match(self.text, self.at)
                parts.append(run.group())
                self.at = run.end()
                continue
            backslash = self.at
            self.at += 1
            e = self.peek()
            if e in _ESCAPES:
                parts.append(_ESCAPES[e])
            elif e == "u":
                digits = self.text[self.at + 1:self.at + 5]
                if len(digits) != 4 or any(d not in _HEX_DIGITS for d in digits):
                    self.at = backslash
                    raise self.invalid()
                parts.append(chr(int(digits, 16)))
                self.at += 4
            else:
                self.at = backslash
                raise self.invalid()
            self.at += 1

    def number(self) -> int | Number:
        start = self.at
        if self.peek() == "-":
            self.at += 1
        if self.peek() == "0":
            self.at += 1
        else:
            self.digits()
        fraction = self.peek() in ".eE"
        if self.peek() == ".":
            self.at += 1
            self.digits()
        if self.peek() in "eE":
            self.at += 1
            if self.peek() in "+-":
                self.at += 1
            self.digits()
        literal = self.text[start:self.at]
        # more than 20 characters would also meet Python's own limit on int(); no field's integer is that long
        return Number(literal) if fraction or len(literal) > 20 else int(literal)

    def digits(self) -> None:
        if self.peek() not in _DIGITS:
            raise self.invalid()
        self.at = _DIGIT_RUN.match(self.text, self.at).end()

    def expect(self, c: str) -> None:
        if self.peek() != c:
            raise self.invalid()
        self.at += 1

    def invalid(self) -> Exception:
        return self.error(f"descriptor: not valid JSON {self.where()}")

    def where(self) -> str:
        """``(at line L column C)``: lines end at ``\\n``; the column counts code points, from 1."""
        end = min(self.at, len(self.text))
        line_start = self.text.rfind("\n", 0, end) + 1
        return f"(at line {self.text.count(chr(10), 0, end) + 1} column {end - line_start + 1})"
