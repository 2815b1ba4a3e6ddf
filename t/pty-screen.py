# pty-screen.py: run a shell command on a pseudo terminal and print the
# screen it leaves, for the progress tests: the bytes are played on a
# minimal terminal (printable text, \r, \n, ESC[K, ESC[nA and ESC[nB),
# tall enough that nothing scrolls away.  Exits with the command's status.
import os, pty, re, sys

pid, fd = pty.fork()
if pid == 0:
    os.execvp("sh", ["sh", "-c", sys.argv[1]])
data = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
_, status = os.waitpid(pid, 0)
if len(sys.argv) > 2:
    with open(sys.argv[2], "wb") as f:
        f.write(data)

rows, r, c = [[]], 0, 0
for m in re.finditer(rb"\x1b\[(\d*)([A-Za-z])|[\r\n]|[^\x1b\r\n]", data):
    tok = m.group(0)
    if tok == b"\r":
        c = 0
    elif tok == b"\n":
        r += 1
    elif m.group(2) == b"K":
        del rows[r][c:]
    elif m.group(2) == b"A":
        r = max(0, r - int(m.group(1) or 1))
    elif m.group(2) == b"B":
        r += int(m.group(1) or 1)
    elif m.group(2):
        raise SystemExit("unexpected escape sequence %r" % tok)
    else:
        while len(rows[r]) < c:
            rows[r].append(" ")
        rows[r][c:c + 1] = [tok.decode("latin-1")]
        c += 1
    while len(rows) <= r:
        rows.append([])
for row in rows:
    print("".join(row))
sys.exit(os.waitstatus_to_exitcode(status))
