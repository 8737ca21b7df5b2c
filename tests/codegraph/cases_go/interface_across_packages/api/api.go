package api

type Plugin interface {
	Activate() error
}
