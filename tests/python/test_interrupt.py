"""Ctrl-C stops a launch (issue #34): a kernel that spins raised nothing on
SIGINT, and only SIGKILL ended the process. Run in a child process, which
sends itself SIGINT once the kernel runs."""

import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import os, signal, threading
    import numpy as np
    import scjit

    k = scjit.compile('''kernel @spin(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
        mesh scalar(cores = 1)
    {
      for %i = 0 to 2000000000 step 1 {
        copy %x -> %o
      }
    }
    ''')
    threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        k(np.zeros(16, np.int32))
        print("returned")
    except KeyboardInterrupt:
        print("KeyboardInterrupt")
    # Python's own handler is back in place after the launch.
    print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
""")


def test_sigint_raises_keyboard_interrupt_and_stops_the_launch():
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "KeyboardInterrupt\nTrue\n"
