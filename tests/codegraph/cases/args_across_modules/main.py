from handlers import on_error, on_success
from runner import attempt

attempt(on_success, on_error)
