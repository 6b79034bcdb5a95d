#!/bin/bash
# One family in detail, with the cache topology from the formula deck.
"$MFSTAT" machines z16
