#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""doc-blocks.py FILE: the command and file blocks of a guide, for a test.

Every literal block of FILE (a "::" paragraph or a code-block directive)
must be preceded by a comment naming who runs it:

    .. admin-test: ROLE                 commands, one per "# " line
    .. admin-test: ROLE file PATH       the block is written to PATH
    .. admin-test: none REASON          not run here; REASON says where

ROLE is server, client or both.  Printed, one block after another:

    BLOCK <index> <role> <kind> <path or reason or ->
    ><each of the block's lines, dedented, after a ">">
    END

A literal block with no marker, or a marker with no block after it, is an
error (exit status 1), so a guide cannot grow a command nobody runs.
"""
import re
import sys

MARK = re.compile(r'^\.\. admin-test: (\S+)(?: (\S+)(?: (.*))?)?$')
DIRECTIVE = re.compile(r'^\s*\.\. (code-block|code|sourcecode|parsed-literal)::')


def literal_intro(lines, i):
    """Does line i introduce a literal block?"""
    line = lines[i]
    if DIRECTIVE.match(line):
        return True
    # A paragraph's "::" ending, followed by a blank line; not a comment
    # or other directive, and not a title underline of colons.
    stripped = line.strip()
    return (stripped.endswith('::') and not line.lstrip().startswith('..') and
            stripped.strip(':') != '' and
            (i + 1 == len(lines) or not lines[i + 1].strip()))


def blocks(lines):
    """Yield (marker match, line number, block lines) for every literal block."""
    pending = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARK.match(line)
        if m:
            if pending:
                raise ValueError(f'line {pending[1]}: marker without a block')
            pending = (m, i + 1)
            i += 1
            continue
        if not literal_intro(lines, i):
            i += 1
            continue
        # The block: past the directive's options (":name: value" lines
        # indented under it) and blank lines, every line indented more
        # than the introducing one, up to the next line that is not.
        indent = len(line) - len(line.lstrip())
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or
                                  (DIRECTIVE.match(line) and
                                   lines[j].strip().startswith(':') and
                                   len(lines[j]) - len(lines[j].lstrip()) > indent)):
            j += 1
        body = []
        while j < len(lines) and (not lines[j].strip() or
                                  len(lines[j]) - len(lines[j].lstrip()) > indent):
            body.append(lines[j])
            j += 1
        while body and not body[-1].strip():
            body.pop()
        if not pending:
            raise ValueError(f'line {i + 1}: literal block without an admin-test marker')
        if not body:
            raise ValueError(f'line {i + 1}: empty literal block')
        yield pending[0], i + 1, body
        pending = None
        i = j
    if pending:
        raise ValueError(f'line {pending[1]}: marker without a block')


def main():
    with open(sys.argv[1], encoding='utf-8') as f:
        lines = f.read().splitlines()
    out = []
    try:
        for n, (m, lineno, body) in enumerate(blocks(lines)):
            role, kind, rest = m.group(1), m.group(2), m.group(3)
            if role == 'none':
                out.append(f'BLOCK {n} none skip {kind or "-"}')
                out.append('END')
                continue
            if role not in ('server', 'client', 'both'):
                raise ValueError(f'line {lineno}: unknown role {role}')
            if kind not in (None, 'file') or (kind == 'file' and not rest):
                raise ValueError(f'line {lineno}: bad marker')
            width = min((len(b) - len(b.lstrip()) for b in body if b.strip()),
                        default=0)
            out.append(f'BLOCK {n} {role} {"file" if kind else "console"} '
                       f'{rest or "-"}')
            out.extend('>' + b[width:] for b in body)
            out.append('END')
    except ValueError as e:
        print(f'{sys.argv[1]}: {e}', file=sys.stderr)
        return 1
    print('\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
