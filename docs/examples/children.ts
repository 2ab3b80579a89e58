import { awaitChildren, type ChildOutcome, type JsonValue, type Repo } from '@fate/core';

declare class ResizeImage implements Repo {
  // a step of its own transaction, one per size
  constructor(size: number);
  readonly type: 'resize-image';
  isReady(): number;
  call(): undefined;
  undo(): void;
  state(): JsonValue;
}

// The parent's step seeds one child per size and parks until they all finished.
export class ResizeAll implements Repo {
  readonly type = 'resize-all';
  isReady(): number {
    return 0;
  }
  call(): Repo {
    const sizes = [64, 256, 1024];
    const children = sizes.map((size) => ({
      name: `size-${size}`, // unique within the parent: the child's key with the parent's id
      opName: 'resize-image',
      step: new ResizeImage(size),
    }));
    return awaitChildren(children, new Publish({}));
  }
  undo(): void {}
  state(): JsonValue {
    return {};
  }
}

// Runs once every child finished; its state gets `children`: each child's outcome by name.
export class Publish implements Repo {
  readonly type = 'publish';
  constructor(readonly s: { readonly children?: Record<string, ChildOutcome> }) {}
  isReady(): number {
    return 0;
  }
  call(): undefined {
    for (const [name, child] of Object.entries(this.s.children ?? {})) {
      console.log(name, child.status, child.returnValue);
    }
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return this.s as unknown as JsonValue;
  }
}
