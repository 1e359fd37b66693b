#!/usr/bin/env python3
"""Checks the pictures as a browser shows them (tests/pictures/chromium_pictures.sh).

  check_pictures.py dom KIND FILE    KIND: report | dashboard | sweep; FILE: chromium --dump-dom output
  check_pictures.py png FILE         the screenshot is not blank
  check_pictures.py layout FILE      what check_layout.js found in the browser (no problem listed)

Exits 1 with a message naming what is missing.
"""
import re
import struct
import sys
import zlib


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def attrs(tag):
    return dict(re.findall(r'([\w:-]+)="([^"]*)"', tag))


def check_report(dom):
    # The roofline has the profile's ceilings and the kernel's points.
    if len(re.findall(r'<line class="ceiling memory[ "]', dom)) < 2:
        fail("roofline: fewer than two memory ceilings")
    if len(re.findall(r'<line class="ceiling compute[ "]', dom)) < 3:
        fail("roofline: fewer than three compute ceilings")
    if not re.search(r'<circle class="point pt-bound"', dom):
        fail("roofline: no point at the bound")
    labels = re.findall(r'<text class="ceiling-label[^"]*"[^>]*>(?:<title>[^<]*</title>)?([^<]*)</text>', dom)
    if not any("HBM" in l for l in labels):
        fail("roofline: the HBM ceiling is not labelled")
    # The waterfall ends at the measured time (when there is one) and every
    # additive step starts where the previous one ended.
    steps = [(attrs(t)["class"], float(attrs(t)["data-from"]), float(attrs(t)["data-to"]))
             for t in re.findall(r'<g class="step [^"]*"[^>]*>', dom)]
    if not steps:
        fail("waterfall: no steps")
    level = None
    for cls, frm, to in steps:
        kind = cls.split()[1]
        if kind == "base":
            level = to
        elif kind in ("argued", "given", "gap", "unexplained", "overlap"):
            if level is None or abs(frm - level) > 1e-9 * max(1.0, abs(level)) + 1e-15:
                fail("waterfall: step %s starts at %g, not at %g" % (cls, frm, level))
            level = to
    measured = [s for s in steps if s[0] == "step measured"]
    if measured:
        if abs(level - measured[0][2]) > 1e-12:
            fail("waterfall: the steps end at %g, the measured time is %g" % (level, measured[0][2]))
        if not any(s[0] in ("step unexplained", "step overlap") for s in steps):
            fail("waterfall: a measurement without the unexplained remainder")
    # Every finding row links its source line (a coverage finding: the
    # uncounted ops), and the link's target exists; a finding whose document
    # names no IR line names its Python line, or says it has none.
    rows = re.findall(r'<tr class="finding">(.*?)</tr>', dom, re.S)
    for row in rows:
        m = re.search(r'<a class="src-link" href="#([^"]+)"', row)
        if not m:
            if 'class="no-source' in row or re.search(r'>Python [^<]+\.py:\d+', row):
                continue
            fail("findings: a row without a source link: " + re.sub("<[^>]+>", " ", row)[:120])
        if ('id="%s"' % m.group(1)) not in dom:
            fail("findings: link target %s missing" % m.group(1))
    if len(re.findall(r'<g class="component', dom)) < 2:
        fail("components: fewer than two bars")
    print("report: %d memory + %d compute ceilings, %d waterfall steps, %d findings with source links"
          % (dom.count('ceiling memory'), dom.count('ceiling compute'), len(steps), len(rows)))


def check_dashboard(dom):
    rows = len(re.findall(r'<tr class="case"', dom))
    chart = len(re.findall(r'<g class="case-row"', dom))
    if rows == 0 or rows != chart:
        fail("dashboard: %d table rows, %d chart rows" % (rows, chart))
    print("dashboard: %d cases" % rows)


def check_sweep(dom):
    points = len(re.findall(r'<g class="config', dom))
    if points == 0:
        fail("sweep: no configuration drawn")
    print("sweep: %d configurations, %d pruned" % (points, dom.count('class="config pruned"')))


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + ": not a PNG")
    pos, idat, width, height, depth, ctype = 8, b"", 0, 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6):
        fail(path + ": unexpected PNG format (depth %d, colour type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = {}
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            for x in range(0, stride, bpp * 4):
                key = bytes(line[x:x + 3])
                colours[key] = colours.get(key, 0) + 1
        prev = line
    return width, height, colours


def check_png(path):
    width, height, colours = png_pixels(path)
    total = sum(colours.values())
    background = max(colours.values())
    ink = 1 - background / total
    if len(colours) < 16 or ink < 0.02:
        fail("%s: blank (%d colours, %.1f %% non-background)" % (path, len(colours), 100 * ink))
    print("%s: %dx%d, %d colours, %.1f %% non-background" % (path, width, height, len(colours), 100 * ink))


def check_layout(path):
    import json
    dom = open(path, encoding="utf-8").read()
    # The last one: the script that writes it holds the same tag in its text.
    found = re.findall(r'<pre id="pb-layout-result">(\{.*?)</pre>', dom, re.S)
    if not found:
        fail("%s: the layout check did not run (no pb-layout-result)" % path)
    text = found[-1].replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#39;", "'").replace("&amp;", "&")
    result = json.loads(text)
    where = "%s (%d px, %s)" % (path, result["width"], "dark" if result["dark"] else "light")
    if result["problems"]:
        fail(where + ":\n  " + "\n  ".join(result["problems"]))
    print("%s: no clipping, overlap, low contrast or duplicated section" % where)


if __name__ == "__main__":
    if sys.argv[1] == "dom":
        dom = open(sys.argv[3], encoding="utf-8").read()
        {"report": check_report, "dashboard": check_dashboard, "sweep": check_sweep}[sys.argv[2]](dom)
    elif sys.argv[1] == "png":
        check_png(sys.argv[2])
    elif sys.argv[1] == "layout":
        check_layout(sys.argv[2])
    else:
        fail("usage: check_pictures.py dom KIND FILE | png FILE | layout FILE")
