import sys

from station.console.users import main

sys.exit(main())
