# A stand-in for torch (tests/test_pyrank.c): only the rendezvous.
