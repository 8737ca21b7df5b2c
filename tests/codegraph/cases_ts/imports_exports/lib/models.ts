export interface User {
  id: number;
  name: string;
}

export type UserId = User['id'];

export class UserStore {
  private users = new Map<UserId, User>();

  add(user: User): void {
    this.users.set(user.id, user);
  }

  names(): string[] {
    return [...this.users.values()].map(label);
  }
}

export function label(user: User): string {
  return `${user.id}:${user.name}`;
}
