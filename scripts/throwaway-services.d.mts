// Types of scripts/throwaway-services.mjs, for the TypeScript that imports it (bench/).
export declare const INSTALL: string
export declare class ProvisionError extends Error {}
export type Register = (cleanup: () => Promise<void>) => void
export declare function startPostgres(register: Register): Promise<string>
export declare function startRedis(register: Register): Promise<string>
