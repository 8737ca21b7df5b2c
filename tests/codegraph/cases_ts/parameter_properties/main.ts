class Repo {
  find(id: number): string {
    return `item ${id}`;
  }
}

class MemoCache {
  get(key: string): string | undefined {
    return undefined;
  }
}

class Service {
  constructor(
    private readonly repo: Repo,
    protected cache?: MemoCache,
  ) {}

  load(id: number): string {
    return this.cache?.get(String(id)) ?? this.repo.find(id);
  }
}

console.log(new Service(new Repo(), new MemoCache()).load(1));
