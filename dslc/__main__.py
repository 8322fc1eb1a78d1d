from dslc.cli import main

raise SystemExit(main())
