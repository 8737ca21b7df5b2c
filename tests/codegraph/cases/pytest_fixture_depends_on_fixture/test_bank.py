def test_balance(account):
    account.balance()
