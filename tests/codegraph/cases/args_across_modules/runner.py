def attempt(success, failure):
    try:
        return success()
    finally:
        failure()
