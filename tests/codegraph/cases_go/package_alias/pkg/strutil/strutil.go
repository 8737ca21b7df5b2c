package strutil

func Upper(s string) string { return s }
