"""What may be stored, and about which files: the gate every found item passes.

``prose`` splits text into sentences and reads its markers of knowledge; ``junk`` is the
rubric (status, narration, fragments, pastes … are refused); ``paths`` makes paths
repo-relative and masks home directories; ``mentions`` finds the files an item names;
``candidates`` is the candidate record with its origin, and which origins store knowledge
at once and which wait for corroboration.
"""
