"""The drawings the user works on: a machine's board, a row of racks, the block diagram."""
