package router

// key is Key under the name the router's tests use for it.
func key(namespace, name string) string { return Key(namespace, name) }
