from rackplanner.cli import main

raise SystemExit(main())
