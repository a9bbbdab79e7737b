"""For tests of commands that read a pipe as it arrives: write one line to a process, then read
the one line it answers before anything more is written."""
import os
import select


def exchange(proc, line, wait=30):
    """Writes <line> and a newline to proc's stdin, then returns the next line of its stdout
    (bytes, with its newline), or what came before <wait> seconds without a byte: a bound against
    a hang, not a measure (nothing more is written until the answer comes)."""
    proc.stdin.write(line.encode() + b"\n")
    proc.stdin.flush()
    got = b""
    while not got.endswith(b"\n") and select.select([proc.stdout], [], [], wait)[0]:
        b = os.read(proc.stdout.fileno(), 1)
        if not b:
            break
        got += b
    return got
