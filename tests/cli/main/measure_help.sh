# mfstat measure --help: options, -o checked before the run, formats from -o's name, and examples.
"$MFSTAT" measure --help
