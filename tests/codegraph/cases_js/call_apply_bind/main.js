const account = {
  balance: 0,
  deposit(n) {
    this.balance += n;
    return this.log('deposit');
  },
  log(what) {
    console.log(what, this.balance);
  },
};

function applyTwice(fn, self, n) {
  fn.call(self, n);
  fn.apply(self, [n]);
}

applyTwice(account.deposit, account, 5);
const bound = account.log.bind(account);
bound('bound');
