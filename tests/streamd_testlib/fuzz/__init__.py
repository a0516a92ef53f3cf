"""The project's own differential fuzzer for the stream commands (issue 11).

- gen:       seeded random command sequences (valid and malformed) over the stream commands and
             options that both streamd and redis-server 7.0.15 know
- normalise: what two correct servers may answer differently (times, generated IDs, radix node
             counts) rewritten to placeholders before replies are compared
- matchers:  the `!fuzz` lines of versions rows: the only differences the fuzzer may skip
- run:       one sequence, pipelined to both servers, compared reply by reply
- shrink:    delta debugging of a failing sequence down to a minimal differential script

The command line is tests/differential/fuzz_streams.py.
"""
