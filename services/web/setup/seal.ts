/**
 * Sealing the delivered keys to the poll token. Registration derives an X25519 key pair from the
 * poll token and stores only the public half; approval (done by a person, who never sees the
 * token) encrypts the three keys to it; only a poll that presents the token can derive the private
 * half and open them. A copy of the database alone never yields a working key.
 */
import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto'

const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex')
const SPKI_X25519_PREFIX = Buffer.from('302a300506032b656e032100', 'hex')
const INFO = Buffer.from('svc setup-session seal v1')

function privateFromToken(token: string): KeyObject {
  const seed = Buffer.from(hkdfSync('sha256', token, Buffer.alloc(0), INFO, 32))
  return createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, seed]), format: 'der', type: 'pkcs8' })
}

function rawPublic(key: KeyObject): Buffer {
  const publicKey = key.type === 'public' ? key : createPublicKey(key)
  return (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(SPKI_X25519_PREFIX.length)
}

function publicFromRaw(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_X25519_PREFIX, raw]), format: 'der', type: 'spki' })
}

function aesKey(shared: Buffer, ephemeral: Buffer, recipient: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeral, recipient]), INFO, 32))
}

/** The public key registration stores for a poll token (32 bytes). */
export function sealPublicKey(token: string): Buffer {
  return rawPublic(privateFromToken(token))
}

/** Encrypts plaintext to a stored public key: ephemeral key, nonce, tag, ciphertext. */
export function seal(recipient: Uint8Array, plaintext: string): Buffer {
  const { privateKey, publicKey } = generateKeyPairSync('x25519')
  const ephemeral = rawPublic(publicKey)
  const shared = diffieHellman({ privateKey, publicKey: publicFromRaw(recipient) })
  const nonce = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', aesKey(shared, ephemeral, recipient), nonce)
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return Buffer.concat([ephemeral, nonce, cipher.getAuthTag(), body])
}

/** Opens what seal() produced for the public key of this token; throws if anything was altered. */
export function open(token: string, sealed: Uint8Array): string {
  const box = Buffer.from(sealed)
  const ephemeral = box.subarray(0, 32)
  const nonce = box.subarray(32, 44)
  const tag = box.subarray(44, 60)
  const privateKey = privateFromToken(token)
  const shared = diffieHellman({ privateKey, publicKey: publicFromRaw(ephemeral) })
  const decipher = createDecipheriv('aes-256-gcm', aesKey(shared, ephemeral, rawPublic(privateKey)), nonce)
  decipher.setAuthTag(tag)
  return Buffer.concat([decipher.update(box.subarray(60)), decipher.final()]).toString('utf8')
}
