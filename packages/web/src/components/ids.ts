/** A path id from the address bar, passed to the SDK as its branded type (the server validates it: 400/404). */
export const asId = (id: string) => id as never
