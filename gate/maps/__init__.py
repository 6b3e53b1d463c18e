"""Parent coverage maps: reading and binding map files, building them with the tests, shards."""
