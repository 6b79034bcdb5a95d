# mfstat stat --help: options, exit statuses, -a until ^C, formats from -o's name, and examples.
"$MFSTAT" stat --help
