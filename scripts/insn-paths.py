#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""insn-paths.py LOG PAIRS: which guest instructions ran, and how often.

LOG is QEMU's log of a boot with -d in_asm,exec,nochain and a -dfilter
(qemu/boot.sh: P2P_QEMU_LOG, P2P_QEMU_DFILTER): in_asm gives each
translated block's instructions, exec one line per execution of a block.
Prints every instruction that ran, in address order, with the number of
times it ran divided by PAIRS (the map+unmap pairs the guest did), and
the total: instructions per pair inside the filtered ranges.
"""
import re
import sys

INSN = re.compile(r'^0x([0-9a-f]+):\s+(?:[0-9a-f]{2} )*\s*(.*)$')
EXEC = re.compile(r'^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/')


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: insn-paths.py LOG PAIRS')
    pairs = float(sys.argv[2])
    blocks = {}     # block start -> [insn addresses], as last translated
    text = {}       # insn address -> disassembly
    runs = {}       # block start -> executions
    block = None
    with open(sys.argv[1], errors='replace') as log:
        for line in log:
            if line.startswith('IN:'):
                block = []
                continue
            m = INSN.match(line)
            if m and block is not None:
                addr = int(m.group(1), 16)
                if not block:
                    blocks[addr] = block
                block.append(addr)
                text[addr] = m.group(2).strip()
                continue
            if not line.strip():
                block = None
                continue
            m = EXEC.match(line)
            if m:
                pc = int(m.group(1), 16)
                runs[pc] = runs.get(pc, 0) + 1
    count = {}
    for pc, n in runs.items():
        for addr in blocks.get(pc, []):
            count[addr] = count.get(addr, 0) + n
    total = 0.0
    for addr in sorted(count):
        per = count[addr] / pairs
        if per < 0.01:
            continue
        total += per
        print(f'{addr:#x} {per:8.2f}  {text.get(addr, "?")}')
    print(f'total: {total:.1f} instructions per pair')


if __name__ == '__main__':
    main()
