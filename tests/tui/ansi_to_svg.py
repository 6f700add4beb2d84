#!/usr/bin/env python3
"""Turns a terminal capture with SGR escapes (tmux capture-pane -e -p) into SVG.

    tmux capture-pane -e -p -t SESSION > screen.ansi
    python3 tests/tui/ansi_to_svg.py screen.ansi docs/images/terminal.svg

Handles the SGR attributes tmux emits: bold, dim, italic, underline, reverse,
strike-through, the 16 basic colours, 256 indexed colours and 24-bit colours.
Wide characters take two cells.
"""
import html
import re
import sys
import unicodedata

CELL_W = 8.6
CELL_H = 19
FONT_SIZE = 14
PAD = 14
BG = "#1c1c1c"
FG = "#d0d0d0"

BASIC = ["#1c1c1c", "#d75f5f", "#87af87", "#d7af5f", "#5f87d7", "#af87d7", "#5fafaf", "#d0d0d0",
         "#585858", "#ff8787", "#afd787", "#ffd787", "#87afff", "#d7afff", "#87d7d7", "#ffffff"]


def xterm256(n):
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


class Pen:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = self.strike = False

    def key(self):
        return (self.fg, self.bg, self.bold, self.dim, self.italic, self.underline, self.reverse,
                self.strike)

    def apply(self, params):
        codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 3:
                self.italic = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 9:
                self.strike = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif c == 29:
                self.strike = False
            elif 30 <= c <= 37:
                self.fg = BASIC[c - 30]
            elif 90 <= c <= 97:
                self.fg = BASIC[c - 90 + 8]
            elif 40 <= c <= 47:
                self.bg = BASIC[c - 40]
            elif 100 <= c <= 107:
                self.bg = BASIC[c - 100 + 8]
            elif c == 39:
                self.fg = None
            elif c == 49:
                self.bg = None
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    color = xterm256(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    color = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5])
                    i += 4
                else:
                    color = None
                if c == 38:
                    self.fg = color
                else:
                    self.bg = color
            i += 1


def width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def parse(text):
    """Rows of runs: (column, cells, text, pen key)."""
    rows = []
    pen = Pen()
    for line in text.rstrip("\n").split("\n"):
        runs = []
        col = 0
        for part in re.split(r"(\x1b\[[0-9;]*m)", line):
            if part.startswith("\x1b["):
                pen.apply(part[2:-1])
                continue
            part = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", part)
            if not part:
                continue
            cells = sum(width(ch) for ch in part)
            runs.append((col, cells, part, pen.key()))
            col += cells
        rows.append(runs)
    return rows


def render(rows, title):
    cols = max((r[-1][0] + r[-1][1] for r in rows if r), default=80)
    w = PAD * 2 + cols * CELL_W
    h = PAD * 2 + len(rows) * CELL_H
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'role="img" aria-label="%s">' % (w, h, w, h, html.escape(title)),
        '<rect width="100%%" height="100%%" rx="6" fill="%s"/>' % BG,
        '<g font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d">' % FONT_SIZE,
    ]
    for y, runs in enumerate(rows):
        top = PAD + y * CELL_H
        base = top + CELL_H * 0.75
        for col, cells, text, key in runs:
            fg, bg, bold, dim, italic, underline, reverse, strike = key
            fg = fg or FG
            if reverse:
                fg, bg = (bg or BG), fg
            x = PAD + col * CELL_W
            if bg:
                out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>' %
                           (x, top, cells * CELL_W, CELL_H, bg))
            if not text.strip():
                continue
            attrs = ['x="%.1f"' % x, 'y="%.1f"' % base, 'fill="%s"' % fg,
                     'textLength="%.1f"' % (cells * CELL_W), 'lengthAdjust="spacingAndGlyphs"',
                     'xml:space="preserve"']
            if bold:
                attrs.append('font-weight="bold"')
            if italic:
                attrs.append('font-style="italic"')
            if dim:
                attrs.append('opacity="0.6"')
            deco = [d for d, on in (("underline", underline), ("line-through", strike)) if on]
            if deco:
                attrs.append('text-decoration="%s"' % " ".join(deco))
            out.append("<text %s>%s</text>" % (" ".join(attrs), html.escape(text)))
    out.append("</g></svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: ansi_to_svg.py CAPTURE.ansi OUT.svg")
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        rows = parse(f.read())
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(render(rows, "raw, the terminal interface of Raw"))


if __name__ == "__main__":
    main()
